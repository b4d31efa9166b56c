import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['gpt-test'],
  });
  await gateway.admin('PUT', '/admin/v1/models/gpt-test', { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const chat = (key: string, body: Record<string, unknown> = {}) =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hello there' }], ...body },
  });

const usage = async (query: string) => {
  const result = await gateway.admin('GET', `/admin/v1/usage?${query}`);
  expect(result.status).toBe(200);
  return result.body;
};

const waitForRecords = async (query: string, count: number, timeoutMs?: number) => {
  let body = await usage(query);
  await waitFor(async () => {
    body = await usage(query);
    return body.data.length >= count;
  }, timeoutMs);
  return body;
};

describe('GET /admin/v1/usage', () => {
  test('every request has a record with its tokens and cost, filtered by account, key and time, with totals', async () => {
    const { key, keyId, account } = await gateway.createAccountWithKey();
    const other = await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id });
    const startedAt = new Date().toISOString();
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key, { stream: true, stream_options: { include_usage: true } })).status).toBe(200);
    expect((await chat(other.body.key)).status).toBe(200);

    const byAccount = await waitForRecords(`accountId=${account.id}`, 3);
    expect(byAccount.data).toHaveLength(3);
    // Newest first: the oldest, the first non-streamed request of `key`, comes last.
    const first = byAccount.data[2];
    expect(first).toMatchObject({
      requestId: expect.any(String),
      time: expect.any(String),
      accountId: account.id,
      keyId,
      model: 'gpt-test',
      channelId: 'fake-openai',
      endpoint: 'chat',
      stream: false,
      status: 'success',
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
      usageSource: 'upstream',
      // 11 × $1 + 7 × $2 per million
      cost: 0.000025,
      latencyMs: expect.any(Number),
    });
    expect(byAccount.totals).toEqual({
      requests: 3,
      promptTokens: 33,
      completionTokens: 21,
      totalTokens: 54,
      cost: 0.000075,
    });

    const byKey = await usage(`keyId=${keyId}`);
    expect(byKey.data.map((record: any) => record.stream)).toEqual([true, false]);
    const both = await usage(`accountId=${account.id}&keyId=${other.body.id}`);
    expect(both.data).toHaveLength(1);

    expect((await usage(`accountId=${account.id}&from=${encodeURIComponent(startedAt)}`)).data).toHaveLength(3);
    expect((await usage(`accountId=${account.id}&to=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).data).toHaveLength(
      0,
    );
    // Without an account or key, the day index is read (by default the last day).
    expect((await usage('')).data.length).toBeGreaterThanOrEqual(3);
  });

  test('a stream the client aborts is recorded as client_aborted with estimated tokens and their cost', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    await upstream.inject({ kind: 'slow-stream', gapMs: 300 });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-test',
        stream: true,
        messages: [{ role: 'user', content: 'hello there friend' }],
      }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('Echo')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    const [record] = (await waitForRecords(`accountId=${account.id}`, 1)).data;
    expect(record).toMatchObject({ status: 'client_aborted', stream: true, usageSource: 'estimate' });
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(record.cost).toBeGreaterThan(0);
  });

  test("an upstream's counts are recorded as whole, non-negative tokens, whatever it reports", async () => {
    const { key, account } = await gateway.createAccountWithKey();
    await upstream.inject({
      kind: 'status',
      status: 200,
      body: {
        id: 'chatcmpl-odd',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'gpt-test',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
        // A negative count would credit the account; a fraction is no number of tokens.
        usage: { prompt_tokens: -7, completion_tokens: 2.6, total_tokens: -4.4 },
      },
    });
    expect((await chat(key)).status).toBe(200);

    const [record] = (await waitForRecords(`accountId=${account.id}`, 1)).data;
    expect(record).toMatchObject({ usageSource: 'upstream', promptTokens: 0, completionTokens: 3, totalTokens: 0 });
    expect(record.cost).toBeGreaterThanOrEqual(0);
  });

  test('a request refused by a limit is recorded too, with no tokens', async () => {
    const { key, account } = await gateway.createAccountWithKey({}, { rateLimit: { tpm: 10 } });
    expect((await chat(key)).status).toBe(429);
    const [record] = (await waitForRecords(`accountId=${account.id}`, 1)).data;
    expect(record).toMatchObject({ status: 'error', httpStatus: 429, totalTokens: 0, cost: 0 });
  });

  test('a bad filter is a 400 naming it', async () => {
    const result = await gateway.admin('GET', '/admin/v1/usage?from=yesterday');
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 'invalid_value', param: 'from' });
  });
});

describe('key IP allow-list', () => {
  test('a key used from outside its allowed ranges gets 403 forbidden; from inside, it works', async () => {
    const outside = await gateway.createAccountWithKey({}, { allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    const refused = await chat(outside.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'forbidden' });

    const inside = await gateway.createAccountWithKey({}, { allowedIps: ['127.0.0.0/8', '::1/128'] });
    expect((await chat(inside.key)).status).toBe(200);

    const patched = await gateway.admin('PATCH', `/admin/v1/keys/${outside.keyId}`, { allowedIps: null });
    expect(patched.body.allowedIps).toBeNull();
    expect((await chat(outside.key)).status).toBe(200);
  });

  test('an allow-list entry that is not a CIDR is a 400 naming it', async () => {
    const { account } = await gateway.createAccountWithKey();
    const result = await gateway.admin('POST', '/admin/v1/keys', {
      accountId: account.id,
      allowedIps: ['10.0.0.0/33'],
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 'invalid_value', param: 'allowedIps[0]' });
  });
});

describe('key lifecycle', () => {
  test('a revoked key and an expired key are refused with 401 at once', async () => {
    const revoked = await gateway.createAccountWithKey();
    const expired = await gateway.createAccountWithKey();
    expect((await chat(revoked.key)).status).toBe(200);
    expect((await chat(expired.key)).status).toBe(200);

    await gateway.admin('DELETE', `/admin/v1/keys/${revoked.keyId}`);
    await gateway.admin('PATCH', `/admin/v1/keys/${expired.keyId}`, { expiresAt: '2020-01-01T00:00:00Z' });

    for (const key of [revoked.key, expired.key]) {
      const result = await chat(key);
      expect(result.status).toBe(401);
      expect(result.body.error.code).toBe('invalid_api_key');
    }
  });

  test('a disabled account is refused with 401', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    await gateway.admin('PATCH', `/admin/v1/accounts/${account.id}`, { status: 'disabled' });
    expect((await chat(key)).status).toBe(401);
  });
});
