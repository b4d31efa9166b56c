import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

/** Fixed windows start on the minute: a pair of requests that straddles two windows would be counted apart. */
const awaitFreshWindow = async (neededMs = 5000) => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

const OPENAI_REFUSAL = { error: { type: 'requests', code: 'rate_limit_exceeded' } };

const endpoints: [name: string, path: string, body: Record<string, unknown>, refusal: Record<string, unknown>][] = [
  [
    'chat completions',
    '/v1/chat/completions',
    { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] },
    OPENAI_REFUSAL,
  ],
  [
    'messages',
    '/v1/messages',
    { model: 'demo-1', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    { type: 'error', error: { type: 'rate_limit_error' } },
  ],
  ['responses', '/v1/responses', { model: 'demo-1', input: 'hi' }, OPENAI_REFUSAL],
  ['embeddings', '/v1/embeddings', { model: 'demo-1', input: 'hi' }, OPENAI_REFUSAL],
  ['images', '/v1/images/generations', { model: 'demo-1', prompt: 'a red square' }, OPENAI_REFUSAL],
  [
    'speech',
    '/v1/audio/speech',
    { model: 'demo-1', input: 'hello', voice: 'alloy', response_format: 'wav' },
    OPENAI_REFUSAL,
  ],
  [
    'gemini generateContent',
    '/v1beta/models/demo-1:generateContent',
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
  ],
];

describe.each(endpoints)('%s with 1 RPM', (_name, path, body, refusal) => {
  test("the first request succeeds with rate-limit headers, the second is 429 with Retry-After in the endpoint's error format", async () => {
    const { key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 1 } });
    await awaitFreshWindow();

    const first = await gateway.request('POST', path, { key, body });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('0');

    const second = await gateway.request('POST', path, { key, body });
    expect(second.status).toBe(429);
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(second.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(second.body).toMatchObject(refusal);
  });
});

test('a streamed Messages response carries the rate-limit headers', async () => {
  const { key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 5 } });
  await awaitFreshWindow();
  const result = await gateway.request('POST', '/v1/messages', {
    key,
    body: { model: 'demo-1', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(result.status).toBe(200);
  expect(result.headers.get('content-type')).toContain('text/event-stream');
  expect(result.headers.get('x-ratelimit-limit-requests')).toBe('5');
  expect(result.headers.get('x-ratelimit-remaining-requests')).toBe('4');
});
