import { auditActions } from '../../functions/shared/store/audit-entry.js';
import { captureLogLines } from '../support/captured-log-lines.js';
import { itInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The audit trail, black-box over HTTP: every change through the admin API or the console leaves one
 * record (who, from where, what, which request), never a secret; the trail reads newest first, a
 * page at a time, filtered by action, actor and time.
 */
describe('the audit trail', () => {
  let gateway: TestGateway;
  let adminKeyId: string;
  const password = 'a long enough password';
  const upstreamKey = 'sk-upstream-audit-secret-0000000001';

  const audit = async (query = '') => {
    const answer = await gateway.admin('GET', `/admin/v1/audit${query}`);
    expect(answer.status).toBe(200);
    return answer.body as { data: any[]; nextCursor?: string };
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    const me = await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } });
    adminKeyId = (me.body.user.id as string).replace(/^admin-key:/, '');
  });

  afterAll(() => gateway.close());

  it('records every change of the admin API and the console, with who, where, what and the request id', async () => {
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'audited' })).body.id as string;
    await gateway.admin('PATCH', `/admin/v1/accounts/${account}`, { name: 'audited again' });
    const key = (await gateway.admin('POST', '/admin/v1/keys', { accountId: account })).body;
    await gateway.admin('PATCH', `/admin/v1/keys/${key.id}`, { name: 'renamed' });
    await gateway.admin('DELETE', `/admin/v1/keys/${key.id}`);
    const channel = { type: 'openai', baseUrl: 'https://upstream.example/v1', models: ['audit-model'] };
    await gateway.admin('PUT', '/admin/v1/channels/audited', { ...channel, apiKey: upstreamKey });
    await gateway.admin('PUT', '/admin/v1/models/audit-model', { ownedBy: 'audit' });
    await gateway.admin('DELETE', '/admin/v1/models/audit-model');
    await gateway.admin('PUT', '/admin/v1/members/ann@audit.example', { accountId: account, role: 'member', password });
    await gateway.admin('POST', '/admin/v1/apply', { channels: [{ id: 'audited', ...channel }] });
    await gateway.admin('DELETE', '/admin/v1/channels/audited');
    const signedIn = await gateway.request('POST', '/console/api/session', {
      body: { email: 'ann@audit.example', password },
    });
    const failed = await gateway.request('POST', '/console/api/session', {
      body: { email: 'ann@audit.example', password: 'not the password' },
    });
    expect(failed.status).toBe(401);
    const consoleKey = await gateway.request('POST', '/console/api/keys', {
      key: signedIn.body.token,
      body: { name: 'from the console' },
    });
    expect(consoleKey.status).toBe(201);
    await gateway.request('PATCH', `/console/api/keys/${consoleKey.body.id}`, {
      key: signedIn.body.token,
      body: { name: 'renamed in the console' },
    });
    await gateway.request('DELETE', `/console/api/keys/${consoleKey.body.id}`, { key: signedIn.body.token });
    await gateway.admin('DELETE', '/admin/v1/members/ann@audit.example');
    const deleted = await gateway.admin('DELETE', `/admin/v1/accounts/${account}`);

    const { data } = await audit('?limit=1000');
    const admin = { kind: 'admin-key', id: adminKeyId };
    const ann = { kind: 'console-user', id: 'ann@audit.example' };
    const expected = [
      ['account.create', admin, { kind: 'account', id: account }],
      ['account.update', admin, { kind: 'account', id: account }],
      ['key.create', admin, { kind: 'key', id: key.id }],
      ['key.update', admin, { kind: 'key', id: key.id }],
      ['key.revoke', admin, { kind: 'key', id: key.id }],
      ['channel.put', admin, { kind: 'channel', id: 'audited' }],
      ['model.put', admin, { kind: 'model', id: 'audit-model' }],
      ['model.delete', admin, { kind: 'model', id: 'audit-model' }],
      ['member.put', admin, { kind: 'member', id: 'ann@audit.example' }],
      ['config.apply', admin, expect.objectContaining({ kind: 'config' })],
      ['channel.delete', admin, { kind: 'channel', id: 'audited' }],
      ['console.sign-in', ann, { kind: 'console-user', id: 'ann@audit.example' }],
      ['console.sign-in-failed', ann, { kind: 'console-user', id: 'ann@audit.example' }],
      ['key.create', ann, { kind: 'key', id: consoleKey.body.id }],
      ['key.update', ann, { kind: 'key', id: consoleKey.body.id }],
      ['key.revoke', ann, { kind: 'key', id: consoleKey.body.id }],
      ['member.delete', admin, { kind: 'member', id: 'ann@audit.example' }],
      ['account.delete', admin, { kind: 'account', id: account }],
    ] as const;
    const ours = data.filter(
      (entry) => entry.at >= data.find((e) => e.target.id === account && e.action === 'account.create').at,
    );
    expect(ours.map((entry) => [entry.action, entry.actor, entry.target]).reverse()).toEqual(expected);
    for (const entry of ours) {
      expect(Object.keys(entry).sort()).toEqual(['action', 'actor', 'at', 'requestId', 'sourceIp', 'target']);
      expect(entry.sourceIp).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
      expect(entry.requestId).toEqual(expect.any(String));
    }
    expect(ours.at(0).requestId).toBe(deleted.headers.get('x-request-id'));
    // Never a secret: no admin key, no upstream key, no password, no user key.
    const text = JSON.stringify(data);
    for (const secret of [gateway.adminKey, upstreamKey, password, key.key, consoleKey.body.key, 'not the password'])
      expect(text).not.toContain(secret);
  });

  it('records a failed sign-in with an admin key without the key', async () => {
    const wrongKey = `sk-${'9'.repeat(48)}`;
    const failed = await gateway.request('POST', '/console/api/session', { body: { key: wrongKey } });
    expect(failed.status).toBe(401);

    const { data } = await audit('?action=console.sign-in-failed&limit=1');

    expect(data[0]).toMatchObject({ action: 'console.sign-in-failed', actor: { kind: 'admin-key', id: 'unknown' } });
    expect(JSON.stringify(data)).not.toContain(wrongKey);
  });

  it('pages newest first with a cursor that neither repeats nor skips a record', async () => {
    for (let index = 0; index < 5; index += 1)
      await gateway.admin('PUT', `/admin/v1/models/paged-${index}`, { ownedBy: 'paging' });
    const whole = (await audit('?action=model.put&limit=1000')).data;
    const seen: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await audit(`?action=model.put&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);

    expect(seen).toEqual(whole);
    const times = seen.map((entry) => entry.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(seen.slice(0, 5).map((entry) => entry.target.id)).toEqual([4, 3, 2, 1, 0].map((index) => `paged-${index}`));
  });

  it('filters by action, by actor and by time, and pages the unfiltered trail too', async () => {
    const before = new Date().toISOString();
    await gateway.admin('PUT', '/admin/v1/models/filtered', { ownedBy: 'filter' });
    const signIn = await gateway.request('POST', '/console/api/session', {
      body: { email: 'nobody@audit.example', password: 'wrong password' },
    });
    expect(signIn.status).not.toBe(201);

    const since = await audit(`?from=${encodeURIComponent(before)}`);
    expect(since.data.map((entry) => entry.action)).toEqual(['console.sign-in-failed', 'model.put']);
    const byActor = await audit('?actorId=nobody@audit.example');
    expect(byActor.data.map((entry) => entry.action)).toEqual(['console.sign-in-failed']);
    const byActorAndAction = await audit(`?actorId=${adminKeyId}&action=model.put&limit=1`);
    expect(byActorAndAction.data).toEqual([
      expect.objectContaining({ action: 'model.put', target: { kind: 'model', id: 'filtered' } }),
    ]);
    expect(byActorAndAction.nextCursor).toEqual(expect.any(String));
    const until = await audit(`?to=${encodeURIComponent(before)}&limit=1000`);
    expect(until.data.some((entry) => entry.target.id === 'filtered')).toBe(false);

    const all: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await audit(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toEqual((await audit('?limit=1000')).data);
  });

  it('refuses an unknown action, a bad time range, and a cursor from another query', async () => {
    expect((await gateway.admin('GET', '/admin/v1/audit?action=key.steal')).body.error.param).toBe('action');
    expect(
      (await gateway.admin('GET', '/admin/v1/audit?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z')).body.error
        .param,
    ).toBe('from');
    const { nextCursor } = await audit('?limit=1');
    const foreign = await gateway.admin(
      'GET',
      `/admin/v1/audit?action=model.put&cursor=${encodeURIComponent(nextCursor!)}`,
    );
    expect([foreign.status, foreign.body.error.param]).toEqual([400, 'cursor']);
    expect(auditActions).toEqual(expect.arrayContaining(['config.apply', 'console.sign-in', 'console.sign-in-failed']));
  });

  it('is readable in the console by operators only', async () => {
    const operator = (await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } })).body
      .token as string;
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'console audit' })).body.id as string;
    await gateway.admin('PUT', '/admin/v1/members/boss@audit.example', {
      accountId: account,
      role: 'account-admin',
      password,
    });
    const boss = (
      await gateway.request('POST', '/console/api/session', { body: { email: 'boss@audit.example', password } })
    ).body.token as string;

    const asOperator = await gateway.request('GET', '/console/api/audit?limit=2', { key: operator });
    const asAccountAdmin = await gateway.request('GET', '/console/api/audit', { key: boss });

    expect(asOperator.status).toBe(200);
    expect(asOperator.body.data).toEqual((await audit('?limit=2')).data);
    expect(asAccountAdmin.status).toBe(403);
  });

  itInProcess('reads the log lines of the gateway in this process')(
    'names the actor in the request log line',
    async () => {
      const logs = captureLogLines();
      try {
        const answer = await gateway.admin('PUT', '/admin/v1/models/logged', { ownedBy: 'log' });
        const line = await logs.next(
          (entry) => entry.message === 'request' && entry.requestId === answer.headers.get('x-request-id'),
        );
        expect(line.actor).toEqual({ kind: 'admin-key', id: adminKeyId });
        const operator = await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } });
        const read = await gateway.request('GET', '/console/api/me', { key: operator.body.token });
        const consoleLine = await logs.next(
          (entry) => entry.message === 'request' && entry.requestId === read.headers.get('x-request-id'),
        );
        expect(consoleLine.actor).toEqual({ kind: 'admin-key', id: adminKeyId });
      } finally {
        logs.restore();
      }
    },
  );
});
