import { readSpend } from '../../functions/shared/accounting/spend.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { itInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

// The fake upstream reports 11 prompt tokens (3 of them cached) and 7 completion tokens a request.
beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['priced', 'cached-priced'],
  });
  // $1 per output token and nothing for input: a request costs $7 and, with max_tokens 10, reserves $10.
  await gateway.admin('PUT', '/admin/v1/models/priced', { pricing: { inputPerMTok: 0, outputPerMTok: 1_000_000 } });
  await gateway.admin('PUT', '/admin/v1/models/cached-priced', {
    pricing: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000, cachedInputPerMTok: 100_000 },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const chat = (key: string, model: string, body: Record<string, unknown> = {}) =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model, messages: [{ role: 'user', content: 'hi' }], ...body },
  });

// The account's spending as stored: summed over its spend shards.
const storedQuota = (accountId: string) => readSpend(accountId);

/** The account's spending as the admin API shows it. */
const spent = async (accountId: string): Promise<number> =>
  (await gateway.admin('GET', `/admin/v1/accounts/${accountId}`)).body.quota.used;

describe('quota', () => {
  itInProcess('reads the reservation ledger in the store')(
    'a quota running out under concurrency is never overdrawn by more than the reservations',
    async () => {
      const { key, account } = await gateway.createAccountWithKey({ quota: { limit: 50 } });

      const first = await Promise.all(Array.from({ length: 20 }, () => chat(key, 'priced', { max_tokens: 10 })));
      const rest = [];
      for (let index = 0; index < 10; index += 1) rest.push(await chat(key, 'priced', { max_tokens: 10 }));
      const results = [...first, ...rest];

      const succeeded = results.filter((result) => result.status === 200).length;
      const refused = results.filter((result) => result.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) {
        expect(result.body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
      }
      // Every admitted request reserved $10 and spent $7, so the spending can never pass the limit.
      await waitFor(async () => (await storedQuota(account.id)).used === succeeded * 7);
      const quota = await storedQuota(account.id);
      expect(quota.used).toBeLessThanOrEqual(50);
      expect(succeeded).toBeGreaterThanOrEqual(5);
      // Every reservation was closed: nothing is left held.
      await waitFor(async () => (await storedQuota(account.id)).committed === quota.used);
      // The admin API shows the spending.
      const shown = await gateway.admin('GET', `/admin/v1/accounts/${account.id}`);
      expect(shown.body.quota).toEqual({ limit: 50, used: succeeded * 7 });
    },
  );

  test('a spent quota refuses every request with 429 insufficient_quota, and raising the limit lets them through', async () => {
    const { key, account } = await gateway.createAccountWithKey({ quota: { limit: 7 } });
    expect((await chat(key, 'priced', { max_tokens: 7 })).status).toBe(200);
    await waitFor(async () => (await spent(account.id)) === 7);

    const refused = await chat(key, 'priced', { max_tokens: 1 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });

    await gateway.admin('PATCH', `/admin/v1/accounts/${account.id}`, { quota: { limit: 100 } });
    expect((await chat(key, 'priced', { max_tokens: 7 })).status).toBe(200);
  });

  test('cached prompt tokens are priced at the cached price', async () => {
    const { key, account } = await gateway.createAccountWithKey({ quota: { limit: 1000 } });
    expect((await chat(key, 'cached-priced', { max_tokens: 10 })).status).toBe(200);
    // 8 uncached × $1 + 3 cached × $0.1 + 7 completion × $2 = $22.3
    await waitFor(async () => (await spent(account.id)) > 0);
    expect(await spent(account.id)).toBeCloseTo(22.3, 9);
    const usage = await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`);
    expect(usage.body.data[0].cost).toBeCloseTo(22.3, 9);
  });
});
