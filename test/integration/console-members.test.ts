import { randomBytes, scryptSync } from 'node:crypto';
import OpenAI from 'openai';
import { writeUsageRecord } from '../../functions/shared/accounting/usage-records.js';
import { getMember, putMember } from '../../functions/shared/store/members.js';
import { remoteTarget } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { usageRecordWith } from '../support/usage-record.js';

/**
 * The local console's identity rules, black-box over HTTP (with the store read and written directly
 * where a test needs a record the API cannot make: an old password hash, old usage).
 */
const describeLocal = remoteTarget ? describe.skip : describe;

describeLocal('console members, sessions and sign-in limits', () => {
  let gateway: TestGateway;
  let accountA: string;
  let accountB: string;
  const password = 'long enough password';
  const tokens: Record<string, string> = {};

  const signIn = (body: object) => gateway.request('POST', '/console/api/session', { body });
  const as = (who: string, method: string, path: string, body?: unknown) =>
    gateway.request(method, path, { key: tokens[who], body });
  const chat = (key: string) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
      model: 'demo-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
  const addMember = async (email: string, accountId: string, role: string) => {
    expect((await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId, role, password })).status).toBe(201);
    const answer = await signIn({ email, password });
    expect(answer.status).toBe(201);
    return answer.body.token as string;
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    accountA = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'a' })).body.id;
    accountB = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'b' })).body.id;
    tokens.bob = await addMember('bob@a.example', accountA, 'account-admin');
    tokens.alice = await addMember('alice@a.example', accountA, 'member');
    tokens.erin = await addMember('erin@b.example', accountB, 'account-admin');
  }, 180_000);

  afterAll(() => gateway.close());

  describe('an account admin manages the members of their account', () => {
    it('adds a member, changes their role, and lists the account without secrets', async () => {
      const added = await as('bob', 'PUT', '/console/api/members/frank@a.example', { role: 'member' });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ id: 'frank@a.example', accountId: accountA, role: 'member' });
      const changed = await as('bob', 'PUT', '/console/api/members/Frank@A.example', { role: 'account-admin' });
      expect(changed.status).toBe(200);
      expect(changed.body.role).toBe('account-admin');

      const listed = await as('bob', 'GET', '/console/api/members');
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((member: { id: string }) => member.id)).toEqual(
        expect.arrayContaining(['alice@a.example', 'bob@a.example', 'frank@a.example']),
      );
      expect(listed.body.data.every((member: { accountId: string }) => member.accountId === accountA)).toBe(true);
      expect(listed.text).not.toMatch(/scrypt|passwordHash|mfaSignIns/);
    });

    it('stays within the account: no admin role, no other account, no operator, nobody for a plain member', async () => {
      expect((await as('bob', 'PUT', '/console/api/members/gina@a.example', { role: 'admin' })).status).toBe(403);
      expect(
        (await as('bob', 'PUT', '/console/api/members/gina@a.example', { role: 'member', accountId: accountB })).status,
      ).toBe(403);
      // A person of another account is neither taken over nor removed.
      expect((await as('bob', 'PUT', '/console/api/members/erin@b.example', { role: 'member' })).status).toBe(409);
      expect((await as('bob', 'DELETE', '/console/api/members/erin@b.example')).status).toBe(404);
      expect((await getMember('erin@b.example'))?.accountId).toBe(accountB);
      expect((await as('bob', 'GET', `/console/api/members?accountId=${accountB}`)).status).toBe(403);
      // An operator of the same account is out of reach too.
      await gateway.admin('PUT', '/admin/v1/members/olga@a.example', { accountId: accountA, role: 'admin' });
      expect((await as('bob', 'PUT', '/console/api/members/olga@a.example', { role: 'member' })).status).toBe(409);
      expect((await as('bob', 'DELETE', '/console/api/members/olga@a.example')).status).toBe(404);
      expect((await getMember('olga@a.example'))?.role).toBe('admin');
      // A member manages nobody.
      expect((await as('alice', 'GET', '/console/api/members')).status).toBe(403);
      expect((await as('alice', 'PUT', '/console/api/members/hal@a.example', { role: 'member' })).status).toBe(403);
      expect((await as('alice', 'DELETE', '/console/api/members/bob@a.example')).status).toBe(403);
    });

    it("removes a member: their session ends and every key they created is revoked, not a colleague's", async () => {
      const token = await addMember('ivan@a.example', accountA, 'member');
      tokens.ivan = token;
      const ivans = await Promise.all(
        ['one', 'two'].map(async (name) => (await as('ivan', 'POST', '/console/api/keys', { name })).body),
      );
      const alices = (await as('alice', 'POST', '/console/api/keys', { name: 'stays' })).body;
      await expect(chat(ivans[0].key)).resolves.toBeDefined();

      const removed = await as('bob', 'DELETE', '/console/api/members/ivan@a.example');
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ id: 'ivan@a.example', deleted: true, keysRevoked: 2 });

      for (const key of ivans) await expect(chat(key.key)).rejects.toMatchObject({ status: 401 });
      // Each revocation is in the audit trail, by the account admin who removed the member.
      const trail = (await gateway.admin('GET', '/admin/v1/audit?action=key.revoke&actorId=bob@a.example')).body.data;
      expect(trail.map((entry: { target: { id: string } }) => entry.target.id)).toEqual(
        expect.arrayContaining(ivans.map((key) => key.id)),
      );
      await expect(chat(alices.key)).resolves.toBeDefined();
      expect((await as('ivan', 'GET', '/console/api/me')).status).toBe(401);
      expect((await signIn({ email: 'ivan@a.example', password })).status).toBe(401);
    }, 120_000);

    it('removing a member through the admin API revokes their keys as well', async () => {
      tokens.jack = await addMember('jack@a.example', accountA, 'member');
      const key = (await as('jack', 'POST', '/console/api/keys', { name: 'j' })).body;
      const removed = await gateway.admin('DELETE', '/admin/v1/members/jack@a.example');
      expect(removed.body).toMatchObject({ deleted: true, keysRevoked: 1 });
      await expect(chat(key.key)).rejects.toMatchObject({ status: 401 });
    }, 120_000);

    it('cannot change or remove themselves', async () => {
      expect((await as('bob', 'DELETE', '/console/api/members/bob@a.example')).status).toBe(403);
      expect((await as('bob', 'PUT', '/console/api/members/bob@a.example', { role: 'member' })).status).toBe(403);
    });
  });

  it('hides admin-role keys of the account from its account admin, for listing and revoking alike', async () => {
    const operatorKey = await gateway.admin('POST', '/admin/v1/keys', { accountId: accountA, role: 'admin' });
    expect(operatorKey.status).toBe(201);
    const listed = await as('bob', 'GET', '/console/api/keys');
    expect(listed.body.data.map((key: { id: string }) => key.id)).not.toContain(operatorKey.body.id);
    expect((await as('bob', 'DELETE', `/console/api/keys/${operatorKey.body.id}`)).status).toBe(404);
    expect((await gateway.request('GET', '/admin/v1/accounts', { key: operatorKey.body.key })).status).toBe(200);
  });

  it('deleting an account removes its members', async () => {
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'short-lived' })).body.id;
    const token = await addMember('kim@gone.example', account, 'account-admin');
    const deleted = await gateway.admin('DELETE', `/admin/v1/accounts/${account}`);
    expect(deleted.body).toMatchObject({ deleted: true, membersDeleted: 1 });
    expect(await getMember('kim@gone.example')).toBeUndefined();
    expect((await gateway.request('GET', '/console/api/me', { key: token })).status).toBe(401);
  }, 120_000);

  describe('an operator session opened with an admin key lasts only as long as the key', () => {
    const keySession = async () => {
      const created = await gateway.admin('POST', '/admin/v1/keys', { accountId: accountB, role: 'admin' });
      const session = await signIn({ key: created.body.key });
      expect(session.status).toBe(201);
      const token = session.body.token as string;
      expect((await gateway.request('GET', '/console/api/me', { key: token })).status).toBe(200);
      expect((await gateway.request('GET', '/admin/v1/accounts', { key: token })).status).toBe(200);
      return { id: created.body.id as string, token };
    };
    const stillOpen = async (token: string) => [
      (await gateway.request('GET', '/console/api/me', { key: token })).status,
      (await gateway.request('GET', '/admin/v1/accounts', { key: token })).status,
    ];

    it('ends when the key is revoked', async () => {
      const { id, token } = await keySession();
      await gateway.admin('DELETE', `/admin/v1/keys/${id}`);
      expect(await stillOpen(token)).toEqual([401, 401]);
    });

    it('ends when the key expires', async () => {
      const { id, token } = await keySession();
      await gateway.admin('PATCH', `/admin/v1/keys/${id}`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
      expect(await stillOpen(token)).toEqual([401, 401]);
    });

    it("ends when the key's account is disabled", async () => {
      const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'ops' })).body.id;
      const created = await gateway.admin('POST', '/admin/v1/keys', { accountId: account, role: 'admin' });
      const token = (await signIn({ key: created.body.key })).body.token as string;
      expect((await gateway.admin('PATCH', `/admin/v1/accounts/${account}`, { status: 'disabled' })).status).toBe(200);
      expect(await stillOpen(token)).toEqual([401, 401]);
    });

    it("keeps to the key's IP allow-list", async () => {
      const { id, token } = await keySession();
      expect((await gateway.admin('PATCH', `/admin/v1/keys/${id}`, { allowedIps: ['203.0.113.0/24'] })).status).toBe(
        200,
      );
      expect(await stillOpen(token)).toEqual([403, 403]);
      await gateway.admin('PATCH', `/admin/v1/keys/${id}`, { allowedIps: ['127.0.0.0/8', '::1/128'] });
      expect(await stillOpen(token)).toEqual([200, 200]);
    });
  });

  describe('usage is read for the period asked for only', () => {
    const DAY = 86_400_000;
    beforeAll(async () => {
      for (const [requestId, daysAgo] of [
        ['request-recent', 1],
        ['request-old', 40],
      ] as const) {
        await writeUsageRecord(
          usageRecordWith({ requestId, accountId: accountA, time: new Date(Date.now() - daysAgo * DAY).toISOString() }),
        );
      }
    });
    const ids = (body: { data: { requestId: string }[] }) => body.data.map((record) => record.requestId);

    it('reads the last 30 days by default, and says which range it read', async () => {
      const answer = await as('bob', 'GET', '/console/api/usage?limit=1000');
      expect(answer.status).toBe(200);
      expect(ids(answer.body)).toContain('request-recent');
      expect(ids(answer.body)).not.toContain('request-old');
      expect(Date.parse(answer.body.to) - Date.parse(answer.body.from)).toBe(30 * DAY);
    });

    it('reads an older period when asked, within 92 days', async () => {
      const from = new Date(Date.now() - 45 * DAY).toISOString();
      const to = new Date(Date.now() - 20 * DAY).toISOString();
      const answer = await as('bob', 'GET', `/console/api/usage?from=${from}&to=${to}&limit=1000`);
      expect(ids(answer.body)).toEqual(['request-old']);
    });

    it.each(['/console/api/usage', '/console/api/overview'])(
      '%s refuses a range over 92 days or one that ends before it starts, naming `from`',
      async (path) => {
        const tooLong = await as('bob', 'GET', `${path}?from=${new Date(Date.now() - 93 * DAY).toISOString()}`);
        expect(tooLong.status).toBe(400);
        expect(tooLong.body.error.param).toBe('from');
        const backwards = await as(
          'bob',
          'GET',
          `${path}?from=${new Date().toISOString()}&to=${new Date(Date.now() - DAY).toISOString()}`,
        );
        expect(backwards.status).toBe(400);
        expect(backwards.body.error.param).toBe('from');
      },
    );
  });

  describe('local sign-in', () => {
    it('locks a user out after 5 failures with 429 and Retry-After, even for the right password', async () => {
      await gateway.admin('PUT', '/admin/v1/members/lee@a.example', { accountId: accountA, role: 'member', password });
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect((await signIn({ email: 'lee@a.example', password: `wrong ${attempt}` })).status).toBe(401);
      }
      const locked = await signIn({ email: 'LEE@a.example', password });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(locked.body.error.code).toBe('rate_limit_exceeded');
    }, 120_000);

    it('upgrades a hash stored at the old scrypt cost on the next successful sign-in', async () => {
      const salt = randomBytes(16);
      const legacy = `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
      const now = new Date().toISOString();
      await putMember({
        id: 'mia@a.example',
        accountId: accountA,
        role: 'member',
        passwordHash: legacy,
        createdAt: now,
        updatedAt: now,
      });
      expect((await signIn({ email: 'mia@a.example', password })).status).toBe(201);
      const upgraded = (await getMember('mia@a.example'))?.passwordHash;
      expect(upgraded).toMatch(/^scrypt\$17\$8\$1\$/);
      expect((await signIn({ email: 'mia@a.example', password })).status).toBe(201);
    }, 120_000);
  });
});
