import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { useBudgetClock } from '../../functions/shared/accounting/budget-period.js';
import { budgetSpendId } from '../../functions/shared/accounting/budgets.js';
import { readSpend, spendKey } from '../../functions/shared/accounting/spend.js';
import { getItem } from '../../functions/shared/store/documents.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { newKeyRecord } from '../../functions/shared/config/resource-records.js';
import { putKey } from '../../functions/shared/store/keys.js';
import { captureLogLines, type CapturedLogLines } from '../support/captured-log-lines.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Budgets on accounts, keys and members, per calendar period, driven across period boundaries with
 * the budgets' clock; their alerts; and the refusal of unpriced models under a budget.
 */

let upstream: FakeUpstream;
let gateway: TestGateway;
let logs: CapturedLogLines;
let now = Date.parse('2025-06-04T12:00:00Z'); // a Wednesday

beforeAll(async () => {
  useBudgetClock(() => now);
  logs = captureLogLines('warn');
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/budget-upstream', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['budget-priced', 'budget-unpriced-house-model'],
  });
  // $1 per output token: the fake reports 7 completion tokens, so a request costs $7 and, with
  // max_tokens 10, reserves $10 (its prompt is free).
  await gateway.admin('PUT', '/admin/v1/models/budget-priced', { pricing: { inputPerMTok: 0, outputPerMTok: 1e6 } });
});

afterAll(async () => {
  useBudgetClock();
  logs?.restore();
  await gateway?.close();
  await upstream?.close();
});

const chat = (key: string, model = 'budget-priced') =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  });

type Level = 'account' | 'key' | 'member';
type Period = 'day' | 'week' | 'month' | 'total';

let members = 0;

/** A key whose `level` holds a $10 budget of `period` (a request costs $7: one fits, two do not). */
const keyUnderBudget = async (level: Level, period: Period, alertAt?: number[]) => {
  const budget = { limitUsd: 10, period, ...(alertAt ? { alertAt } : {}) };
  const { account, key, keyId } = await gateway.createAccountWithKey(
    level === 'account' ? { budget } : {},
    level === 'key' ? { budget } : {},
  );
  if (level !== 'member') return { key, ownerId: level === 'account' ? account.id : keyId, accountId: account.id };
  members += 1;
  const email = `budget-member-${members}@example.com`;
  expect(
    (await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId: account.id, role: 'member', budget }))
      .status,
  ).toBe(201);
  // A key the member created (as the console records it).
  const issued = generateApiKey();
  await putKey({ ...newKeyRecord(issued.key, account.id, {}), owner: email });
  return { key: issued.key, ownerId: email, accountId: account.id };
};

const NEXT_PERIOD: Record<Exclude<Period, 'total'>, [string, string]> = {
  day: ['2025-06-04T23:59:59Z', '2025-06-05T00:00:00Z'],
  week: ['2025-06-08T23:59:59Z', '2025-06-09T00:00:00Z'], // Sunday, then Monday
  month: ['2025-06-30T23:59:59Z', '2025-07-01T00:00:00Z'],
};

const settled = async (level: Level, ownerId: string, accountId: string, period: Period, used: number) =>
  waitFor(async () => {
    const spend = await readSpend(budgetSpendId({ level, ownerId, accountId, period }, now));
    return spend.used === used && spend.committed === used;
  });

describeInProcess('sets the budgets clock of this process')('budgets', () => {
  describe.each<Level>(['account', 'key', 'member'])('on the %s', (level) => {
    test.each<Exclude<Period, 'total'>>(['day', 'week', 'month'])(
      'a %s budget refuses past its limit, names itself and its reset, and starts from zero in the next period',
      async (period) => {
        const [lastMoment, nextStart] = NEXT_PERIOD[period];
        now = Date.parse('2025-06-04T12:00:00Z');
        const { key, ownerId, accountId } = await keyUnderBudget(level, period);

        expect((await chat(key)).status).toBe(200);
        await settled(level, ownerId, accountId, period, 7);
        now = Date.parse(lastMoment);
        const refused = await chat(key);
        expect(refused.status).toBe(429);
        expect(refused.body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
        const levelName = level === 'key' ? 'API key' : level;
        expect(refused.body.error.message).toContain(
          `${levelName}'s ${period === 'day' ? 'daily' : `${period}ly`} budget`,
        );
        expect(refused.body.error.message).toContain(`resets at ${new Date(nextStart).toISOString()}`);

        now = Date.parse(nextStart);
        expect((await chat(key)).status).toBe(200);
        await settled(level, ownerId, accountId, period, 7);
      },
    );

    test('a total budget never resets', async () => {
      now = Date.parse('2025-06-04T12:00:00Z');
      const { key, ownerId, accountId } = await keyUnderBudget(level, 'total');
      expect((await chat(key)).status).toBe(200);
      await settled(level, ownerId, accountId, 'total', 7);
      now = Date.parse('2026-01-01T00:00:00Z');
      const refused = await chat(key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toContain('does not reset');
    });
  });

  test.each<[Period, string | null]>([
    ['day', '2025-06-05T00:00:00Z'],
    ['week', '2025-06-09T00:00:00Z'],
    ['month', '2025-07-01T00:00:00Z'],
    ['total', null],
  ])(
    "a %s budget's spend items and alert markers expire 35 days after its period ends (never for total)",
    async (period, end) => {
      now = Date.parse('2025-06-04T12:00:00Z');
      // $7 of $10 passes the alert at half the limit.
      const { key, ownerId, accountId } = await keyUnderBudget('key', period, [0.5]);
      expect((await chat(key)).status).toBe(200);
      await settled('key', ownerId, accountId, period, 7);
      const spendId = budgetSpendId({ level: 'key', ownerId, accountId, period }, now);
      const item = async (id: string) =>
        (await getItem({ TableName: physicalTableName('spend'), Key: { id }, ConsistentRead: true })).Item;
      await waitFor(async () => (await item(`${spendId}!alert!0.5`)) !== undefined);

      const expected = end === null ? undefined : Date.parse(end) / 1000 + 35 * 86_400;
      expect((await item(spendKey(spendId, 0).id))?.expiresAt).toBe(expected);
      expect((await item(`${spendId}!alert!0.5`))?.expiresAt).toBe(expected);
    },
  );

  test('reading a budget shows its spending, what remains and its period', async () => {
    now = Date.parse('2025-06-04T12:00:00Z');
    const { key, ownerId, accountId } = await keyUnderBudget('key', 'week');
    expect((await chat(key)).status).toBe(200);
    await settled('key', ownerId, accountId, 'week', 7);
    const read = await gateway.admin('GET', `/admin/v1/keys/${ownerId}`);
    expect(read.body.budget).toEqual({
      limitUsd: 10,
      period: 'week',
      alertAt: [0.8, 1],
      spentUsd: 7,
      remainingUsd: 3,
      periodStart: '2025-06-02T00:00:00.000Z',
      resetsAt: '2025-06-09T00:00:00.000Z',
    });
    const removed = await gateway.admin('PATCH', `/admin/v1/keys/${ownerId}`, { budget: null });
    expect(removed.body.budget).toBeNull();
  });

  test('50 concurrent requests at a budget edge never overdraw beyond the reservations still open', async () => {
    now = Date.parse('2025-06-04T12:00:00Z');
    const { key, ownerId, accountId } = await gateway
      .createAccountWithKey({}, { budget: { limitUsd: 100, period: 'day' } })
      .then(({ key: issued, keyId, account }) => ({ key: issued, ownerId: keyId, accountId: account.id }));
    const results = await Promise.all(Array.from({ length: 50 }, () => chat(key)));
    const admitted = results.filter((result) => result.status === 200).length;
    expect(results.every((result) => result.status === 200 || result.status === 429)).toBe(true);
    // Each admitted request reserved $10 and spent $7: $350 asked for, so many are refused, and what
    // was spent, once every reservation has closed, stays within the $100.
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThan(50);
    await settled('key', ownerId, accountId, 'day', admitted * 7);
    expect(admitted * 7).toBeLessThanOrEqual(100);
  });

  test('a model without a price is refused under a budget and served without one', async () => {
    now = Date.parse('2025-06-04T12:00:00Z');
    const { key } = await keyUnderBudget('account', 'month');
    const refused = await chat(key, 'budget-unpriced-house-model');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'model_not_priced' });
    expect(refused.body.error.message).toContain("'budget-unpriced-house-model'");
    expect(refused.body.error.message).toContain('PUT /admin/v1/models/budget-unpriced-house-model');

    const free = await gateway.createAccountWithKey();
    expect((await chat(free.key, 'budget-unpriced-house-model')).status).toBe(200);
  });

  test('setting a budget on an account that can reach an unpriced model warns', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', {
      name: 'warned',
      budget: { limitUsd: 5, period: 'month' },
    });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining("'budget-unpriced-house-model'")]),
    );
    const narrow = await gateway.admin('POST', '/admin/v1/accounts', {
      name: 'not warned',
      models: ['budget-priced'],
      budget: { limitUsd: 5, period: 'month' },
    });
    expect(narrow.body.warnings).toBeUndefined();
  });

  test('each alert fires exactly once per threshold and period, however many settlements cross it', async () => {
    now = Date.parse('2025-06-04T12:00:00Z');
    const { account, key } = await gateway.createAccountWithKey({
      budget: { limitUsd: 70, period: 'day', alertAt: [0.5, 0.9] },
    });
    const alertsOf = () => logs.lines.filter((line) => line.event === 'budget_alert' && line.id === account.id);
    // Ten requests of $7 at once, then five more: spending passes both thresholds.
    await Promise.all(Array.from({ length: 10 }, () => chat(key)));
    await Promise.all(Array.from({ length: 5 }, () => chat(key)));
    const spendId = budgetSpendId({ level: 'account', ownerId: account.id, accountId: account.id, period: 'day' }, now);
    await waitFor(async () => {
      const spend = await readSpend(spendId);
      return spend.used === spend.committed;
    });
    const { used } = await readSpend(spendId);
    const reached = [0.5, 0.9].filter((threshold) => used >= threshold * 70);
    expect(reached.length).toBeGreaterThan(0);
    await waitFor(() => alertsOf().length >= reached.length);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const alerts = alertsOf();
    expect(alerts.map((line) => line.threshold).sort()).toEqual(reached);
    expect(alerts[0]).toMatchObject({
      event: 'budget_alert',
      level: 'account',
      id: account.id,
      limitUsd: 70,
      period: 'day',
      budget_alert: 1,
    });

    // The next day is a new period: its thresholds alert again, once.
    now = Date.parse('2025-06-05T12:00:00Z');
    await Promise.all(Array.from({ length: 6 }, () => chat(key)));
    await waitFor(() => alertsOf().length === alerts.length + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alertsOf()).toHaveLength(alerts.length + 1);
  });
});
