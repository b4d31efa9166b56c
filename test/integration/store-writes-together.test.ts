import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { store } from '../support/sdk-store.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { windowStartOf } from '../../functions/shared/accounting/rate-limit-window.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { describeInProcess } from '../support/gateway-target.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Requests of one account that are served at once by one process share their store writes (one
 * conditional update per window for the requests admitted together, summed corrections and
 * settlements, usage records in batches). What the store ends up holding must be exactly what one
 * write per request would have left: every record, every window count, every cent of spend, and no
 * admission past a limit.
 */

const MODEL = 'together-model';
const BURST = 24;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  process.env.GATEWAY_CACHE_TTL_MS = '30000';
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/together-upstream', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: [MODEL],
  });
  await gateway.admin('PUT', `/admin/v1/models/${MODEL}`, { pricing: { inputPerMTok: 3, outputPerMTok: 7 } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const burst = async (key: string, count: number) => {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      gateway.request('POST', '/v1/chat/completions', {
        key,
        body: { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `request number ${index}` }] },
      }),
    ),
  );
  await Promise.all(answers.map((answer) => invocationEnd(answer.headers.get('x-request-id')!)));
  return answers;
};

const counter = async (id: string): Promise<number> => {
  const { Item } = await store().send(
    new GetCommand({ TableName: physicalTableName('counters'), Key: { id }, ConsistentRead: true }),
  );
  return Number(Item?.count ?? 0);
};

const usageOf = async (accountId: string) => {
  const page = await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}&limit=100`);
  return page.body.data as { cost: number; totalTokens: number; httpStatus: number }[];
};

describeInProcess('reads the store')('requests served together', () => {
  it('leave every usage record, window count and spend exactly as one write each would', async () => {
    const { account, key, keyId } = await gateway.createAccountWithKey(
      { rateLimit: { rpm: 1000, tpm: 1_000_000 }, quota: { limit: 100 } },
      { rateLimit: { rpm: 1000 } },
    );
    await burst(key, 1); // the key and the catalogue cached
    const windowStart = windowStartOf(Date.now());
    const answers = await burst(key, BURST);
    if (windowStartOf(Date.now()) !== windowStart) return; // the minute turned: the windows are split

    expect(answers.map((answer) => answer.status)).toEqual(Array(BURST).fill(200));
    const records = await usageOf(account.id);
    expect(records).toHaveLength(BURST + 1);
    const tokens = records.reduce((sum, record) => sum + record.totalTokens, 0);
    const cost = records.reduce((sum, record) => sum + record.cost, 0);
    expect(tokens).toBeGreaterThan(0);
    expect(await counter(`rpm#account#${account.id}#${windowStart}`)).toBe(BURST + 1);
    expect(await counter(`rpm#key#${keyId}#${windowStart}`)).toBe(BURST + 1);
    // The token window was charged estimates and corrected to what each request really used.
    expect(await counter(`tpm#account#${account.id}#${windowStart}`)).toBe(tokens);
    const shown = await gateway.admin('GET', `/admin/v1/accounts/${account.id}`);
    expect(shown.body.quota.used).toBeCloseTo(cost, 12);
  });

  it('admit no more than a window holds when more ask at once than it has left', async () => {
    const { account, key } = await gateway.createAccountWithKey({ rateLimit: { rpm: 7 } });
    const windowStart = windowStartOf(Date.now());

    const answers = await burst(key, 12);
    if (windowStartOf(Date.now()) !== windowStart) return;

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(7).fill(200), ...Array(5).fill(429)]);
    expect(await counter(`rpm#account#${account.id}#${windowStart}`)).toBe(7);
    // Refusals are recorded too: each request has its record, with the status its client got.
    const records = await usageOf(account.id);
    expect(records.map((record) => record.httpStatus).sort()).toEqual(statuses);
  });
});
