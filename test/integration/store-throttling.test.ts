import { jest } from '@jest/globals';
import { readSpend } from '../../functions/shared/accounting/spend.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { injectThrottles } from '../support/store-recorder.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
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

afterEach(() => jest.restoreAllMocks());

const chat = (key: string) =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] },
  });

const usageOf = async (accountId: string) =>
  (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body;

const on = (table: 'usage' | 'counters' | 'spend', command: string) => (name: string, input: Record<string, unknown>) =>
  name === command && input.TableName === physicalTableName(table);

describe('a throttled store', () => {
  test.each(['ProvisionedThroughputExceededException', 'ThrottlingException'] as const)(
    'a usage record throttled a few times (%s) is retried and stored',
    async (errorName) => {
      const { key, account } = await gateway.createAccountWithKey();
      const throttles = injectThrottles({ count: 3, matches: on('usage', 'PutItemCommand'), errorName });
      try {
        expect((await chat(key)).status).toBe(200);
        await waitFor(async () => (await usageOf(account.id)).data.length === 1, 10_000);
        expect(throttles.injected).toBe(3);
      } finally {
        throttles.stop();
      }
    },
  );

  test('a usage record the store keeps refusing is logged whole, once, and the client still got its answer', async () => {
    const { key, account, keyId } = await gateway.createAccountWithKey();
    const lines: string[] = [];
    // Keep the line this test waits for (and keep it out of the test output); pass the rest through.
    const stderr = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array) => boolean;
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      if (String(chunk).includes('usage record not stored')) lines.push(String(chunk));
      else stderr(chunk);
      return true;
    });
    // The suite runs with logs off (quiet-logs.ts): this test reads an error line, so errors are on here.
    const level = process.env.GATEWAY_LOG_LEVEL;
    process.env.GATEWAY_LOG_LEVEL = 'error';
    const throttles = injectThrottles({ count: 1_000, matches: on('usage', 'PutItemCommand') });
    let answer: Awaited<ReturnType<typeof chat>>;
    try {
      answer = await chat(key);
      expect(answer.status).toBe(200);
      await waitFor(() => lines.length === 1, 10_000);
    } finally {
      throttles.stop();
      if (level === undefined) delete process.env.GATEWAY_LOG_LEVEL;
      else process.env.GATEWAY_LOG_LEVEL = level;
    }
    const logged = JSON.parse(lines[0]!);
    expect(logged).toMatchObject({
      level: 'error',
      event: 'usage_record_not_stored',
      errorName: 'ProvisionedThroughputExceededException',
      usageRecord: { accountId: account.id, keyId, model: 'gpt-test', status: 'success', totalTokens: 18 },
    });
    // The whole record, as an operator replays it: every member of it, none of the item's keys.
    expect(Object.keys(logged.usageRecord).sort()).toEqual(
      [
        'requestId',
        'time',
        'accountId',
        'keyId',
        'model',
        'channelId',
        'endpoint',
        'stream',
        'status',
        'httpStatus',
        'attempts',
        'promptTokens',
        'completionTokens',
        'totalTokens',
        'cachedTokens',
        'cacheWriteTokens',
        'reasoningTokens',
        'usageSource',
        'cost',
        'latencyMs',
        'overheadMs',
      ].sort(),
    );
    expect(logged.usageRecord.requestId).toBe(answer.headers.get('x-request-id'));
    expect(lines[0]).not.toContain(key);
    expect((await usageOf(account.id)).data).toEqual([]);
  });

  test('rate-limit counters throttled a few times still admit the request', async () => {
    const { key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 100 } });
    const throttles = injectThrottles({ count: 2, matches: on('counters', 'UpdateItemCommand') });
    try {
      const answer = await chat(key);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-remaining-requests')).toBe('99');
    } finally {
      throttles.stop();
    }
  });

  test('counters that stay throttled give the client a 429 with Retry-After, never a 500, and take nothing', async () => {
    const { key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 100 } }, { rateLimit: { rpm: 100 } });
    const throttles = injectThrottles({ count: 1_000, matches: on('counters', 'UpdateItemCommand') });
    let refused;
    try {
      refused = await chat(key);
    } finally {
      throttles.stop();
    }
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
    const next = await chat(key);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining-requests')).toBe('99');
  });

  test('a spend settlement throttled a few times is retried and lands on the quota', async () => {
    const { key, account } = await gateway.createAccountWithKey({ quota: { limit: 10 } });
    // Settlements are the spend updates without a condition (reservations are conditional).
    const settlement = (name: string, input: Record<string, unknown>) =>
      on('spend', 'UpdateItemCommand')(name, input) && !('ConditionExpression' in input);
    const throttles = injectThrottles({ count: 3, matches: settlement });
    try {
      expect((await chat(key)).status).toBe(200);
      // 11 prompt tokens at $1 and 7 completion tokens at $2 per million.
      await waitFor(async () => (await readSpend(account.id)).used === 0.000025, 10_000);
      expect(throttles.injected).toBe(3);
      expect((await readSpend(account.id)).committed).toBe(0.000025);
    } finally {
      throttles.stop();
    }
  });
});
