import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The console API's rules, black-box over HTTP: members see and touch their own keys and usage,
 * account admins their whole account, operators everything; nobody crosses into another account.
 */
describe('the console API authorizes by role and account', () => {
  let gateway: TestGateway;
  let accountA: string;
  let accountB: string;
  const password = 'long enough password';
  const sessions: Record<string, string> = {};

  const signIn = async (email: string) => {
    const answer = await gateway.request('POST', '/console/api/session', { body: { email, password } });
    expect(answer.status).toBe(201);
    return answer.body.token as string;
  };
  const as = (who: string, method: string, path: string, body?: unknown) =>
    gateway.request(method, path, { key: sessions[who], body });
  const createKey = async (who: string, name: string) => {
    const answer = await as(who, 'POST', '/console/api/keys', { name });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; key: string };
  };
  const chat = (key: string) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions
      .create({ model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();

  beforeAll(async () => {
    gateway = await startTestGateway();
    accountA = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'a' })).body.id;
    accountB = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'b' })).body.id;
    const members: [string, string, string][] = [
      ['alice@a.example', accountA, 'member'],
      ['dave@a.example', accountA, 'member'],
      ['bob@a.example', accountA, 'account-admin'],
      ['carol@b.example', accountB, 'member'],
      ['erin@b.example', accountB, 'account-admin'],
    ];
    for (const [email, accountId, role] of members) {
      expect((await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId, role, password })).status).toBe(
        201,
      );
      sessions[email.split('@')[0]!] = await signIn(email);
    }
    sessions.operator = (
      await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } })
    ).body.token;
    // Every member's password is hashed at scrypt's full cost (N = 2^17), twice each: give it time.
  }, 180_000);

  afterAll(() => gateway.close());

  it('shows a member only their own keys, and an account admin every key of the account', async () => {
    const alices = await createKey('alice', 'alice laptop');
    const daves = await createKey('dave', 'dave laptop');
    const carols = await createKey('carol', 'carol laptop');

    const seenBy = async (who: string) =>
      (await as(who, 'GET', '/console/api/keys')).body.data.map((key: { id: string }) => key.id);
    expect(await seenBy('alice')).toEqual([alices.id]);
    expect(await seenBy('dave')).toEqual([daves.id]);
    expect((await seenBy('bob')).sort()).toEqual([alices.id, daves.id].sort());
    expect(await seenBy('erin')).toEqual([carols.id]);
    // Lists never hold the key itself.
    expect(JSON.stringify((await as('bob', 'GET', '/console/api/keys')).body)).not.toContain(alices.key);
  });

  it("answers 404 to a member revoking a colleague's key or another account's, and lets an account admin revoke any key of the account", async () => {
    const daves = await createKey('dave', 'to revoke');
    expect((await as('alice', 'DELETE', `/console/api/keys/${daves.id}`)).status).toBe(404);
    expect((await as('carol', 'DELETE', `/console/api/keys/${daves.id}`)).status).toBe(404);
    expect((await as('erin', 'DELETE', `/console/api/keys/${daves.id}`)).status).toBe(404);
    await expect(chat(daves.key)).resolves.toBeDefined();

    const revoked = await as('bob', 'DELETE', `/console/api/keys/${daves.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    await expect(chat(daves.key)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses to name another account, for keys and usage alike, to everyone but operators', async () => {
    for (const who of ['carol', 'erin']) {
      expect((await as(who, 'GET', `/console/api/keys?accountId=${accountA}`)).status).toBe(403);
      expect((await as(who, 'GET', `/console/api/usage?accountId=${accountA}`)).status).toBe(403);
      expect((await as(who, 'POST', '/console/api/keys', { name: 'x', accountId: accountA })).status).toBe(403);
    }
    expect((await as('operator', 'GET', `/console/api/keys?accountId=${accountA}`)).status).toBe(200);
    expect((await as('operator', 'GET', `/console/api/usage?accountId=${accountB}`)).status).toBe(200);
  });

  it("shows a member the usage of their own keys only, an account admin the account's, grouped as asked", async () => {
    const alices = await createKey('alice', 'usage a');
    const daves = await createKey('dave', 'usage d');
    const carols = await createKey('carol', 'usage c');
    const requestIds = new Map<string, string>();
    for (const [who, key] of [
      ['alice', alices.key],
      ['dave', daves.key],
      ['carol', carols.key],
    ] as const) {
      const { response } = await chat(key);
      requestIds.set(who, response.headers.get('x-request-id')!);
    }
    const usageOf = async (who: string, query = '') => {
      // Usage records are written once each response has ended: wait for all three to be readable.
      const operatorView = async () => [
        ...(await as('operator', 'GET', `/console/api/usage?accountId=${accountA}&limit=1000`)).body.data,
        ...(await as('operator', 'GET', `/console/api/usage?accountId=${accountB}&limit=1000`)).body.data,
      ];
      for (
        let seen = await operatorView();
        ![...requestIds.values()].every((id) => seen.some((record) => record.requestId === id));
        seen = await operatorView()
      ) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      return (await as(who, 'GET', `/console/api/usage?limit=1000${query}`)).body;
    };
    const ids = (body: { data: { requestId: string }[] }) => body.data.map((record) => record.requestId);

    const alice = await usageOf('alice');
    expect(ids(alice)).toContain(requestIds.get('alice'));
    expect(ids(alice)).not.toContain(requestIds.get('dave'));
    expect(alice.data.every((record: { keyId: string }) => record.keyId === alices.id)).toBe(true);
    expect(alice.totals.requests).toBe(alice.data.length);

    const bob = await usageOf('bob', '&groupBy=key');
    expect(ids(bob)).toEqual(expect.arrayContaining([requestIds.get('alice'), requestIds.get('dave')]));
    expect(ids(bob)).not.toContain(requestIds.get('carol'));
    expect(bob.groups.map((group: { keyId: string }) => group.keyId)).toEqual(
      expect.arrayContaining([alices.id, daves.id]),
    );

    // A member naming a colleague's key gets nothing of it.
    expect((await usageOf('alice', `&keyId=${daves.id}`)).data).toEqual([]);
    const byDay = await usageOf('bob', '&groupBy=day');
    expect(byDay.groups.reduce((sum: number, group: { requests: number }) => sum + group.requests, 0)).toBe(
      byDay.totals.requests,
    );
  });

  it('only lets a key narrow the models the account may call', async () => {
    const answer = await as('alice', 'POST', '/console/api/keys', {
      name: 'too wide',
      models: ['demo-1', 'not-served'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('models[1]');
  });

  it('refuses a key whose expiry has passed, naming the field', async () => {
    const answer = await as('alice', 'POST', '/console/api/keys', {
      name: 'expired',
      expiresAt: new Date(Date.now() - 3_600_000).toISOString(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_value', param: 'expiresAt' });
  });

  it('lets an operator session, and only that, use the admin API', async () => {
    expect((await as('operator', 'GET', '/admin/v1/accounts')).status).toBe(200);
    for (const who of ['alice', 'bob']) {
      const refused = await as(who, 'GET', '/admin/v1/accounts');
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    // A session is not an API key: the relay refuses it.
    expect((await gateway.request('GET', '/v1/models', { key: sessions.alice })).status).toBe(401);
    // Member lists never carry password hashes.
    expect((await as('operator', 'GET', '/admin/v1/members')).text).not.toMatch(/scrypt/);
  });

  it('refuses requests without a valid session, a wrong password, and an ended session', async () => {
    expect((await gateway.request('GET', '/console/api/keys')).status).toBe(401);
    expect((await gateway.request('GET', '/console/api/keys', { key: 'gws_' + 'x'.repeat(43) })).status).toBe(401);
    const wrong = await gateway.request('POST', '/console/api/session', {
      body: { email: 'alice@a.example', password: 'wrong password' },
    });
    const unknown = await gateway.request('POST', '/console/api/session', {
      body: { email: 'nobody@a.example', password },
    });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    // A user key is not a way in: only admin keys sign in.
    const { key } = await createKey('alice', 'not a login');
    expect((await gateway.request('POST', '/console/api/session', { body: { key } })).status).toBe(401);

    const token = await signIn('dave@a.example');
    expect((await gateway.request('DELETE', '/console/api/session', { key: token })).status).toBe(200);
    expect((await gateway.request('GET', '/console/api/me', { key: token })).status).toBe(401);
  });

  it('applies a role change or a removal to sessions already open', async () => {
    const token = await signIn('dave@a.example');
    await gateway.admin('PUT', '/admin/v1/members/dave@a.example', { accountId: accountA, role: 'account-admin' });
    expect((await gateway.request('GET', '/console/api/me', { key: token })).body.user.role).toBe('account-admin');
    await gateway.admin('DELETE', '/admin/v1/members/dave@a.example');
    expect((await gateway.request('GET', '/console/api/me', { key: token })).status).toBe(401);
  });

  it('answers bad input with a 4xx naming the field', async () => {
    const badEmail = await gateway.admin('PUT', '/admin/v1/members/not-an-email', {
      accountId: accountA,
      role: 'member',
    });
    expect(badEmail.status).toBe(400);
    const badRole = await gateway.admin('PUT', '/admin/v1/members/x@a.example', { accountId: accountA, role: 'owner' });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.param).toBe('role');
    const badRange = await as('bob', 'GET', '/console/api/usage?from=yesterday');
    expect(badRange.status).toBe(400);
    expect(badRange.body.error.param).toBe('from');
    const badSignIn = await gateway.request('POST', '/console/api/session', { body: '{not json' });
    expect(badSignIn.status).toBe(400);
  });
});
