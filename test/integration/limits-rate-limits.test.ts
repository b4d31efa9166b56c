import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  const channel = await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['gpt-test'],
  });
  expect(channel.status).toBe(200);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Fixed windows start on the minute: a burst that straddles two windows would be counted twice. */
const awaitFreshWindow = async (neededMs = 5000) => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

const chat = (key: string, body: Record<string, unknown> = {}) =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...body },
  });

const usageCount = async (accountId: string) =>
  (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body.data.length as number;

const expectRateLimited = (result: HttpResult, type: 'requests' | 'tokens') => {
  expect(result.status).toBe(429);
  expect(result.body.error).toMatchObject({ type, code: 'rate_limit_exceeded' });
  const retryAfter = Number(result.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(result.headers.get(`x-ratelimit-limit-${type}`)).toMatch(/^\d+$/);
  expect(result.headers.get(`x-ratelimit-remaining-${type}`)).toMatch(/^\d+$/);
  expect(result.headers.get(`x-ratelimit-reset-${type}`)).toMatch(/^(\d+ms|\d+s|\d+m\d+s)$/);
};

describe('requests per minute', () => {
  test('50 concurrent requests on a key with 10 RPM: exactly 10 succeed and 40 get 429 with the headers', async () => {
    const { key } = await gateway.createAccountWithKey({}, { rateLimit: { rpm: 10 } });
    await awaitFreshWindow();

    const results = await Promise.all(Array.from({ length: 50 }, () => chat(key)));

    const succeeded = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 429);
    expect(succeeded).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const result of refused) {
      expectRateLimited(result, 'requests');
      expect(result.headers.get('x-ratelimit-limit-requests')).toBe('10');
      expect(result.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    }
    // Each admitted request saw its own count: remaining 9, 8, … 0, once each.
    const remaining = succeeded.map((result) => Number(result.headers.get('x-ratelimit-remaining-requests')));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const result of succeeded) {
      expect(result.headers.get('x-ratelimit-limit-requests')).toBe('10');
      expect(result.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+s|1m0s)$/);
    }
  });

  test("an account's RPM holds across its keys, and a refusal gives back the key's count", async () => {
    const { account, key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 3 } }, { rateLimit: { rpm: 100 } });
    const second = await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id });
    await awaitFreshWindow();

    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => chat(key)),
      ...Array.from({ length: 5 }, () => chat(second.body.key)),
    ]);

    expect(results.filter((result) => result.status === 200)).toHaveLength(3);
    for (const result of results.filter((result) => result.status === 429)) expectRateLimited(result, 'requests');
    // The first key's window counts only what was admitted, so its headers stay exact.
    const next = await chat(key);
    expect(next.status).toBe(429);
    expect(next.headers.get('x-ratelimit-limit-requests')).toBe('3');
  });

  test('a key without limits gets no rate-limit headers', async () => {
    const { key } = await gateway.createAccountWithKey();
    const result = await chat(key);
    expect(result.status).toBe(200);
    expect(result.headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect(result.headers.get('x-ratelimit-limit-tokens')).toBeNull();
  });

  test('a streamed response carries the rate-limit headers', async () => {
    const { key } = await gateway.createAccountWithKey({}, { rateLimit: { rpm: 5, tpm: 10_000 } });
    await awaitFreshWindow();
    const result = await chat(key, { stream: true });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toContain('text/event-stream');
    expect(result.headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(result.headers.get('x-ratelimit-remaining-requests')).toBe('4');
    expect(result.headers.get('x-ratelimit-limit-tokens')).toBe('10000');
    expect(result.text).toContain('data: [DONE]');
  });
});

describe('tokens per minute', () => {
  test('a request larger than the whole TPM window is refused as tokens', async () => {
    const { key } = await gateway.createAccountWithKey({}, { rateLimit: { tpm: 100 } });
    expectRateLimited(await chat(key, { max_tokens: 500 }), 'tokens');
  });

  test('the estimate (prompt + max_tokens) is reserved, then corrected to the real usage after the call', async () => {
    // The fake upstream reports 18 tokens a request; each request reserves about 201.
    const { key, account } = await gateway.createAccountWithKey({}, { rateLimit: { tpm: 250 } });
    await awaitFreshWindow(15_000);

    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      const before = await usageCount(account.id);
      const result = await chat(key, { max_tokens: 200 });
      statuses.push(result.status);
      if (result.status === 200) {
        expect(result.headers.get('x-ratelimit-limit-tokens')).toBe('250');
        await waitFor(async () => (await usageCount(account.id)) > before);
      } else {
        expectRateLimited(result, 'tokens');
      }
    }
    // Without settlement the second request would not fit (201 + 201 > 250); with it, 18 + 201 does,
    // and so does 36 + 201, while 54 + 201 does not.
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  test('an account TPM shared by concurrent requests never lets their estimates exceed it', async () => {
    const { key } = await gateway.createAccountWithKey({ rateLimit: { tpm: 1000 } });
    await awaitFreshWindow();
    const results = await Promise.all(Array.from({ length: 12 }, () => chat(key, { max_tokens: 240 })));
    const succeeded = results.filter((result) => result.status === 200).length;
    // 4 × ~241 fit; settlements in between may free room for a few more, never for all 12.
    expect(succeeded).toBeGreaterThanOrEqual(4);
    expect(succeeded).toBeLessThan(12);
    for (const result of results.filter((result) => result.status === 429)) expectRateLimited(result, 'tokens');
  });
});
