import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Members in the config file (`apply`): put like the admin API puts them, again and again with the
 * same result, keeping what a file cannot say (a password, an admin's later budget when the file
 * names none), and refused whole when one names an account nobody has.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const ACCOUNT = 'acct_config_members';

const config = (members: unknown[], extra: Record<string, unknown> = {}) => ({
  accounts: [{ id: ACCOUNT, name: 'Config members' }],
  members,
  ...extra,
});

const apply = (body: unknown) => gateway.admin('POST', '/admin/v1/apply', body);

const membersOf = async (accountId = ACCOUNT) =>
  (await gateway.admin('GET', `/admin/v1/members?accountId=${accountId}`)).body.data as Record<string, any>[];

const ada = {
  id: 'Ada@Example.com',
  accountId: ACCOUNT,
  role: 'account-admin',
  budget: { limitUsd: 50, period: 'month' },
};
const bob = { id: 'bob@example.com', accountId: ACCOUNT, role: 'member' };

test('declared members are put with their account, role and budget, and applying again changes nothing', async () => {
  const first = await apply(config([ada, bob]));
  expect(first.status).toBe(200);
  expect(first.body.applied).toMatchObject({ accounts: 1, members: 2 });

  const members = await membersOf();
  expect(members).toEqual([
    expect.objectContaining({
      id: 'ada@example.com',
      accountId: ACCOUNT,
      role: 'account-admin',
      budget: expect.objectContaining({ limitUsd: 50, period: 'month', alertAt: [0.8, 1], spentUsd: 0 }),
    }),
    expect.objectContaining({ id: 'bob@example.com', role: 'member', budget: null }),
  ]);

  expect((await apply(config([ada, bob]))).status).toBe(200);
  expect(await membersOf()).toEqual(members);
});

test('a file without a budget keeps the one set since; a changed or null budget is applied', async () => {
  await apply(config([ada, bob]));
  const set = await gateway.admin('PUT', '/admin/v1/members/bob@example.com', {
    accountId: ACCOUNT,
    role: 'member',
    budget: { limitUsd: 9, period: 'day' },
  });
  expect(set.status).toBe(200);

  await apply(config([{ ...ada, budget: { limitUsd: 80, period: 'week', alertAt: [0.5] } }, bob]));
  const [changedAda, keptBob] = await membersOf();
  expect(changedAda!.budget).toMatchObject({ limitUsd: 80, period: 'week', alertAt: [0.5] });
  expect(keptBob!.budget).toMatchObject({ limitUsd: 9, period: 'day' });

  await apply(
    config([
      { ...ada, budget: null },
      { ...bob, role: 'account-admin' },
    ]),
  );
  const [removedAda, promotedBob] = await membersOf();
  expect(removedAda!.budget).toBeNull();
  expect(promotedBob).toMatchObject({ role: 'account-admin', budget: expect.objectContaining({ limitUsd: 9 }) });
});

test('a member who set a password keeps it when the file is applied again', async () => {
  const carol = { id: 'carol@example.com', accountId: ACCOUNT, role: 'member' };
  await apply(config([carol]));
  const password = 'carol-long-password-1';
  expect(
    (
      await gateway.admin('PUT', '/admin/v1/members/carol@example.com', {
        accountId: ACCOUNT,
        role: 'member',
        password,
      })
    ).status,
  ).toBe(200);

  await apply(config([{ ...carol, budget: { limitUsd: 3, period: 'day' } }]));

  const signIn = await gateway.request('POST', '/console/api/session', {
    body: { email: 'carol@example.com', password },
  });
  expect(signIn.status).toBe(201);
});

test('a member of an account neither the file nor the gateway has refuses the whole file, naming the entry', async () => {
  const refused = await apply({
    models: [{ id: 'config-members-never-written', ownedBy: 'test' }],
    members: [{ id: 'dan@example.com', accountId: 'acct_nobody_has_this', role: 'member' }],
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain("members[0]: no account 'acct_nobody_has_this'");
  expect((await gateway.admin('GET', '/admin/v1/models/config-members-never-written')).status).toBe(404);
  expect((await gateway.admin('GET', '/admin/v1/members')).body.data).not.toContainEqual(
    expect.objectContaining({ id: 'dan@example.com' }),
  );
});

test.each([
  ['a password', [{ ...bob, password: 'a-long-password' }], 'password'],
  ['the same person twice, in another letter case', [bob, { ...bob, id: 'BOB@example.com' }], 'duplicate member'],
  ['an address that is not one', [{ ...bob, id: 'not-an-address' }], 'members[0].id'],
  ['an unknown role', [{ ...bob, role: 'owner' }], 'members[0].role'],
])('refuses %s', async (_what, members, message) => {
  const refused = await apply(config(members));
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body.error)).toContain(message);
});
