import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { readSpend, spendKey } from '../../functions/shared/accounting/spend.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { store } from '../support/sdk-store.js';
import { onStoreRequests } from '../support/store-wire.js';
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

  itInProcess('writes spend shards and counts calls in the store')(
    'the account list shows each account its spending over all its shards, in two reads however many accounts',
    async () => {
      const { key, account } = await gateway.createAccountWithKey({ quota: { limit: 1000 } });
      expect((await chat(key, 'priced', { max_tokens: 10 })).status).toBe(200);
      await waitFor(async () => (await spent(account.id)) === 7);
      // Spending a busy account left on two more shards, one of them far out.
      const shards = await gateway.createAccountWithKey({ quota: { limit: 1000 } });
      for (const [shard, used] of [
        [2, 1.25],
        [99, 0.5],
      ] as const) {
        await store().send(
          new PutCommand({
            TableName: physicalTableName('spend'),
            Item: { ...spendKey(shards.account.id, shard), used, committed: used },
          }),
        );
      }
      for (let index = 0; index < 12; index += 1)
        await gateway.admin('POST', '/admin/v1/accounts', { name: `idle ${index}` });

      const commands: string[] = [];
      const stop = onStoreRequests((command) => {
        commands.push(command);
      });
      let listed;
      try {
        listed = await gateway.admin('GET', '/admin/v1/accounts');
      } finally {
        stop();
      }
      expect(listed.status).toBe(200);
      const usedOf = (id: string) => listed.body.data.find((one: { id: string }) => one.id === id)?.quota.used;
      expect(usedOf(account.id)).toBe(7);
      expect(usedOf(shards.account.id)).toBe(1.75);
      expect((await gateway.admin('GET', `/admin/v1/accounts/${shards.account.id}`)).body.quota.used).toBe(1.75);
      expect(
        listed.body.data.filter((one: { quota: { used: number } }) => one.quota.used === 0).length,
      ).toBeGreaterThan(12);
      // Besides the admin key's own reads: one Scan of the accounts and one of the spend table (a page
      // each at this size), not a read per account.
      expect(commands.filter((command) => command !== 'GetItemCommand')).toEqual(['ScanCommand', 'ScanCommand']);
    },
  );
});
