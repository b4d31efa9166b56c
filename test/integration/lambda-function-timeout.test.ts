import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { describeInProcess } from '../support/gateway-target.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Lambda stops a function at its timeout. With the chat function's timeout cut to 3 s, a request that
 * would run longer ends the gateway's own way first: a stream with its error event, a whole answer
 * with a 504 envelope, and in both cases the usage record written before the invocation ends.
 */
const TIMEOUT_SECONDS = 3;
// Thirty words, one every 250 ms: an answer that would take 7.5 s.
const LONG_PROMPT = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');

let upstream: FakeUpstream;
let gateway: TestGateway;

const describe = describeInProcess('cuts the function timeout of its own gateway to a few seconds');

describe('a request that outlasts the function timeout', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({ functionTimeouts: { chat: TIMEOUT_SECONDS } });
    const channel = await gateway.admin('PUT', '/admin/v1/channels/slow-openai', {
      type: 'openai',
      baseUrl: upstream.baseUrl,
      models: ['gpt-slow'],
      // The upstream's own limits are far away: only the function's timeout can end these requests.
      timeouts: { firstByteMs: 60_000, idleMs: 60_000 },
    });
    expect(channel.status).toBe(200);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const usageOf = async (requestId: string) => {
    const { body } = await gateway.admin('GET', '/admin/v1/usage');
    return (body.data as Array<{ requestId: string }>).find((record) => record.requestId === requestId);
  };

  const chat = (key: string, stream: boolean) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-slow', stream, messages: [{ role: 'user', content: LONG_PROMPT }] }),
    });

  it('ends a stream with a function_timeout error event, closes the upstream call, and records it before the invocation ends', async () => {
    const { key } = await gateway.createAccountWithKey();
    upstream.inject({ kind: 'slow-stream', gapMs: 250 });
    const abortedBefore = upstream.abortedByClient;

    const response = await chat(key, true);
    const text = await response.text();

    expect(response.status).toBe(200);
    const events = text.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    // The answer so far, then the error as the last event: no [DONE], no cut.
    const last = JSON.parse(events.at(-1)!.slice('data: '.length));
    expect(last.error).toMatchObject({ type: 'server_error', code: 'function_timeout' });
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('word29');
    const requestId = response.headers.get('x-request-id')!;
    const end = await invocationEnd(requestId);
    expect(end.timedOut).toBe(false);
    expect(await usageOf(requestId)).toMatchObject({
      status: 'timeout',
      stream: true,
      httpStatus: 200,
      channelId: 'slow-openai',
    });
    expect(upstream.abortedByClient).toBeGreaterThan(abortedBefore);
  });

  it('answers a whole request with a 504 function_timeout envelope, and records it before the invocation ends', async () => {
    const { key } = await gateway.createAccountWithKey();
    upstream.inject({ kind: 'delay', ms: (TIMEOUT_SECONDS + 1) * 1000 });

    const response = await chat(key, false);
    const body = (await response.json()) as { error: unknown };

    expect(response.status).toBe(504);
    expect(body.error).toMatchObject({ type: 'server_error', code: 'function_timeout' });
    const requestId = response.headers.get('x-request-id')!;
    expect((await invocationEnd(requestId)).timedOut).toBe(false);
    expect(await usageOf(requestId)).toMatchObject({ status: 'timeout', stream: false, httpStatus: 504 });
  });
});
