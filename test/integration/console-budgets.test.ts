import { remoteTarget } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The console's budgets over HTTP: each person sees the budgets covering them with their spending;
 * account admins set key and member budgets in their account and nowhere else; members set none;
 * operators reach any account. A member's budget then covers the keys they create.
 */
const describeLocal = remoteTarget ? describe.skip : describe;

describeLocal('console budgets', () => {
  let gateway: TestGateway;
  let accountA: string;
  let accountB: string;
  const password = 'long enough password';
  const tokens: Record<string, string> = {};
  const as = (who: string, method: string, path: string, body?: unknown) =>
    gateway.request(method, path, { key: tokens[who], body });

  const addMember = async (email: string, accountId: string, role: string) => {
    expect((await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId, role, password })).status).toBe(201);
    const signedIn = await gateway.request('POST', '/console/api/session', { body: { email, password } });
    expect(signedIn.status).toBe(201);
    return signedIn.body.token as string;
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    // 10 cents per output token: a demo answer of at most 20 tokens reserves $2.
    await gateway.admin('PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 0, outputPerMTok: 1e5 } });
    accountA = (
      await gateway.admin('POST', '/admin/v1/accounts', { name: 'a', budget: { limitUsd: 1000, period: 'month' } })
    ).body.id;
    accountB = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'b' })).body.id;
    tokens.boss = await addMember('boss@a.example', accountA, 'account-admin');
    tokens.ann = await addMember('ann@a.example', accountA, 'member');
    tokens.other = await addMember('other@b.example', accountB, 'account-admin');
    tokens.operator = (await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } })).body
      .token as string;
  }, 180_000);

  afterAll(() => gateway.close());

  it("shows a member the account's budget and no one else's, and lets them set none", async () => {
    const seen = await as('ann', 'GET', '/console/api/budgets');
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ accountId: accountA, keys: null, members: null });
    expect(seen.body.mine).toEqual([
      expect.objectContaining({ level: 'account', id: accountA, budget: expect.objectContaining({ limitUsd: 1000 }) }),
    ]);
    const refused = await as('ann', 'PUT', '/console/api/budgets/member/ann@a.example', {
      budget: { limitUsd: 1e6, period: 'day' },
    });
    expect(refused.status).toBe(403);
    expect((await as('ann', 'GET', `/console/api/budgets?accountId=${accountB}`)).status).toBe(403);
  });

  it("lets an account admin set a member's budget, which then covers the member's keys and shows with its spending", async () => {
    const set = await as('boss', 'PUT', '/console/api/budgets/member/ann@a.example', {
      budget: { limitUsd: 10, period: 'day', alertAt: [0.1] },
    });
    expect(set.status).toBe(200);
    expect(set.body.budget).toMatchObject({ limitUsd: 10, period: 'day', alertAt: [0.1], spentUsd: 0 });

    const issued = await as('ann', 'POST', '/console/api/keys', { name: 'ann key' });
    expect(issued.status).toBe(201);
    const chat = await gateway.request('POST', '/v1/chat/completions', {
      key: issued.body.key,
      body: { model: 'demo-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);
    let mine: { level: string; budget: { spentUsd: number; remainingUsd: number } }[] = [];
    await waitFor(async () => {
      mine = (await as('ann', 'GET', '/console/api/budgets')).body.mine;
      return mine.some((entry) => entry.level === 'member' && entry.budget.spentUsd > 0);
    });
    const member = mine.find((entry) => entry.level === 'member')!;
    expect(member.budget.remainingUsd).toBeCloseTo(10 - member.budget.spentUsd, 9);

    const listed = await as('boss', 'GET', '/console/api/budgets');
    expect(listed.body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'ann@a.example', budget: expect.objectContaining({ limitUsd: 10 }) }),
      ]),
    );
    expect(listed.body.keys).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: issued.body.id, owner: 'ann@a.example' })]),
    );
  });

  it("lets an account admin set and remove a key's budget in their account", async () => {
    const issued = await as('ann', 'POST', '/console/api/keys', { name: 'budgeted key' });
    const path = `/console/api/budgets/key/${issued.body.id}`;
    const set = await as('boss', 'PUT', path, { budget: { limitUsd: 3, period: 'week' } });
    expect(set.status).toBe(200);
    expect((await gateway.admin('GET', `/admin/v1/keys/${issued.body.id}`)).body.budget).toMatchObject({
      limitUsd: 3,
      period: 'week',
    });
    // The key's owner now sees it among the budgets covering them.
    expect((await as('ann', 'GET', '/console/api/budgets')).body.mine).toEqual(
      expect.arrayContaining([expect.objectContaining({ level: 'key', id: issued.body.id })]),
    );
    expect((await as('boss', 'PUT', path, { budget: null })).body.budget).toBeNull();
  });

  it("keeps an account admin out of other accounts' keys and members, and off operators", async () => {
    const issued = await as('ann', 'POST', '/console/api/keys', { name: 'not yours' });
    const budget = { budget: { limitUsd: 1, period: 'day' } };
    expect((await as('other', 'PUT', `/console/api/budgets/key/${issued.body.id}`, budget)).status).toBe(404);
    expect((await as('other', 'PUT', '/console/api/budgets/member/ann@a.example', budget)).status).toBe(404);
    expect(
      (await gateway.admin('PUT', '/admin/v1/members/op@a.example', { accountId: accountA, role: 'admin' })).status,
    ).toBe(201);
    expect((await as('boss', 'PUT', '/console/api/budgets/member/op@a.example', budget)).status).toBe(404);
    // Account budgets are the operators': the admin API refuses an account admin's session.
    expect((await as('boss', 'PATCH', `/admin/v1/accounts/${accountA}`, budget)).status).toBe(403);
    expect((await as('boss', 'PUT', `/console/api/budgets/account/${accountA}`, budget)).status).toBe(400);
  });

  it("lets an operator set budgets in any account, the account's own included", async () => {
    const put = await as('operator', 'PUT', '/console/api/budgets/member/other@b.example', {
      budget: { limitUsd: 5, period: 'month' },
    });
    expect(put.status).toBe(200);
    const account = await as('operator', 'PATCH', `/admin/v1/accounts/${accountB}`, {
      budget: { limitUsd: 50, period: 'week' },
    });
    expect(account.status).toBe(200);
    const seen = await as('operator', 'GET', `/console/api/budgets?accountId=${accountB}`);
    expect(seen.body.mine).toEqual([
      expect.objectContaining({ level: 'account', budget: expect.objectContaining({ limitUsd: 50, period: 'week' }) }),
    ]);
    expect(seen.body.members).toEqual([
      expect.objectContaining({ id: 'other@b.example', budget: expect.objectContaining({ limitUsd: 5 }) }),
    ]);
  });

  it('refuses a budget that is not one', async () => {
    for (const budget of [{ limitUsd: -1, period: 'day' }, { limitUsd: 1, period: 'year' }, { limitUsd: 1 }]) {
      const refused = await as('boss', 'PUT', '/console/api/budgets/member/ann@a.example', { budget });
      expect(refused.status).toBe(400);
    }
  });
});
