import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;
let accountId: string;
let keyIds: string[];

// 7 requests of one account over 2 keys and 2 models; the fake upstream reports 11 + 7 tokens each.
const REQUESTS: readonly (readonly [key: 0 | 1, model: 'model-a' | 'model-b'])[] = [
  [0, 'model-a'],
  [0, 'model-b'],
  [1, 'model-a'],
  [0, 'model-a'],
  [1, 'model-b'],
  [1, 'model-a'],
  [0, 'model-a'],
];

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['model-a', 'model-b'],
  });
  await gateway.admin('PUT', '/admin/v1/models/model-a', { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
  await gateway.admin('PUT', '/admin/v1/models/model-b', { pricing: { inputPerMTok: 10, outputPerMTok: 20 } });
  const first = await gateway.createAccountWithKey();
  accountId = first.account.id;
  const second = await gateway.admin('POST', '/admin/v1/keys', { accountId });
  const keys = [first.key, second.body.key as string];
  keyIds = [first.keyId, second.body.id as string];
  for (const [key, model] of REQUESTS) {
    const answer = await gateway.request('POST', '/v1/chat/completions', {
      key: keys[key],
      body: { model, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(answer.status).toBe(200);
  }
  await waitFor(async () => (await usage(`accountId=${accountId}`)).body.data.length >= REQUESTS.length, 10_000);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const usage = (query: string) => gateway.admin('GET', `/admin/v1/usage?${query}`);

/** Follows nextCursor from the first page to the last; every page must be a 200. */
const allPages = async (query: string) => {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await usage(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    pages.push(page.body);
    cursor = page.body.nextCursor;
  } while (cursor);
  return pages;
};

const costA = 0.000025;
const costB = 0.00025;

describe('usage API paging, totals and groups', () => {
  test('pages walk every record once, newest first, and totals cover the whole query on every page', async () => {
    const pages = await allPages(`accountId=${accountId}&limit=3`);
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 1]);
    expect(pages.map((page) => 'nextCursor' in page)).toEqual([true, true, false]);
    const records = pages.flatMap((page) => page.data);
    expect(new Set(records.map((record) => record.requestId)).size).toBe(REQUESTS.length);
    const times = records.map((record) => `${record.time}#${record.requestId}`);
    expect(times).toEqual([...times].sort().reverse());
    expect(records.map((record) => record.model)).toEqual(REQUESTS.map(([, model]) => model).reverse());
    for (const page of pages) {
      expect(page.totals).toEqual({
        requests: 7,
        promptTokens: 77,
        completionTokens: 49,
        totalTokens: 126,
        cost: 5 * costA + 2 * costB,
      });
    }
  });

  test('filters by key and by model, through the key index too', async () => {
    const byKey = await allPages(`keyId=${keyIds[1]}&limit=2`);
    expect(byKey.flatMap((page) => page.data).map((record) => record.keyId)).toEqual([keyIds[1], keyIds[1], keyIds[1]]);
    const byModel = await usage(`accountId=${accountId}&model=model-b`);
    expect(byModel.body.data.map((record: any) => record.model)).toEqual(['model-b', 'model-b']);
    expect(byModel.body.totals.requests).toBe(2);
    const byKeyAndModel = await usage(`keyId=${keyIds[0]}&model=model-a`);
    expect(byKeyAndModel.body.totals.requests).toBe(3);
  });

  test.each([
    [
      'model',
      'model',
      [
        { model: 'model-b', requests: 2, cost: 2 * costB },
        { model: 'model-a', requests: 5, cost: 5 * costA },
      ],
    ],
    ['key', 'keyId', null],
    ['account', 'accountId', null],
    ['day', 'day', null],
  ] as const)('groupBy=%s gives totals per %s over the whole query', async (groupBy, field, expected) => {
    const answer = await usage(`accountId=${accountId}&limit=1&groupBy=${groupBy}`);
    expect(answer.status).toBe(200);
    const groups = answer.body.groups as Record<string, unknown>[];
    expect(groups.reduce((sum, group) => sum + (group.requests as number), 0)).toBe(7);
    for (const group of groups) {
      expect(group).toEqual({
        [field]: expect.any(String),
        requests: expect.any(Number),
        promptTokens: (group.requests as number) * 11,
        completionTokens: (group.requests as number) * 7,
        totalTokens: (group.requests as number) * 18,
        cost: expect.any(Number),
      });
    }
    if (expected) expect(groups).toMatchObject(expected);
    if (groupBy === 'key') expect(new Set(groups.map((group) => group.keyId))).toEqual(new Set(keyIds));
    if (groupBy === 'account') expect(groups).toMatchObject([{ accountId, requests: 7 }]);
    if (groupBy === 'day') expect(groups[0]!.day).toBe(new Date().toISOString().slice(0, 10));
  });

  test('without accountId or keyId the day index is read, within 31 days', async () => {
    const recent = await usage('limit=1000');
    expect(recent.body.data.filter((record: any) => record.accountId === accountId)).toHaveLength(7);
    const tooLong = await usage('from=2020-01-01T00:00:00Z&to=2020-03-01T00:00:00Z');
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'invalid_value', param: 'from' });
  });

  test.each([
    ['garbage', () => 'not-a-cursor'],
    ['edited', (cursor: string) => `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`],
    ['re-signed by nobody', (cursor: string) => `${cursor.split('.')[0]}.${'A'.repeat(43)}`],
  ])('a %s cursor is a 400 naming the cursor', async (_, damage) => {
    const first = await usage(`accountId=${accountId}&limit=2`);
    const answer = await usage(
      `accountId=${accountId}&limit=2&cursor=${encodeURIComponent(damage(first.body.nextCursor))}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'cursor' });
  });

  test('a cursor from another query is a 400', async () => {
    const first = await usage(`accountId=${accountId}&limit=2`);
    const answer = await usage(`keyId=${keyIds[0]}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('cursor');
  });

  test.each(['groupBy=week', 'limit=0', 'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z'])(
    'a bad %s is a 400',
    async (query) => {
      const answer = await usage(`accountId=${accountId}&${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_value');
    },
  );
});
