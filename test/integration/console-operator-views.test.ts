import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { invocationEnd } from '../support/invocation-ends.js';

/**
 * The console's operator views over HTTP: the overview across accounts with names, money that agrees
 * with the admin usage API, the request log's filters, cursor and CSV, key edits and when a key was
 * last used; and the same routes narrowed to what members and account admins may see.
 */
describe('the console overview, request log and key edits', () => {
  let gateway: TestGateway;
  const sessions: Record<string, string> = {};
  const password = 'long enough password';
  let teamA: string;
  let teamB: string;
  let keyA: { id: string; key: string };
  let keyB: { id: string; key: string };
  let membersKey: { id: string; key: string };

  const as = (who: string, method: string, path: string, body?: unknown) =>
    gateway.request(method, path, { key: sessions[who], body });
  const chat = async (key: string, model = 'demo-1') => {
    const answer = await gateway.request('POST', '/v1/chat/completions', {
      key,
      body: { model, messages: [{ role: 'user', content: 'hello there' }] },
    });
    await invocationEnd(answer.headers.get('x-request-id')!);
    return answer;
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    // Priced, so that the money has something to agree on; no account has a quota.
    await gateway.admin('PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 3, outputPerMTok: 15 } });
    teamA = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'team-a' })).body.id;
    teamB = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'team-b' })).body.id;
    keyA = (await gateway.admin('POST', '/admin/v1/keys', { accountId: teamA, name: 'a-service' })).body;
    keyB = (await gateway.admin('POST', '/admin/v1/keys', { accountId: teamB, name: 'b-service' })).body;
    await gateway.admin('PUT', '/admin/v1/members/mia@a.example', { accountId: teamA, role: 'member', password });
    await gateway.admin('PUT', '/admin/v1/members/abe@a.example', {
      accountId: teamA,
      role: 'account-admin',
      password,
    });
    for (const email of ['mia@a.example', 'abe@a.example']) {
      sessions[email.split('@')[0]!] = (
        await gateway.request('POST', '/console/api/session', { body: { email, password } })
      ).body.token;
    }
    sessions.operator = (
      await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } })
    ).body.token;
    membersKey = (await as('mia', 'POST', '/console/api/keys', { name: 'mia laptop' })).body;
    for (let index = 0; index < 5; index += 1) expect((await chat(keyA.key)).status).toBe(200);
    for (let index = 0; index < 2; index += 1) expect((await chat(keyB.key)).status).toBe(200);
    expect((await chat(membersKey.key)).status).toBe(200);
    expect((await chat(keyA.key, 'no-such-model')).status).toBe(404);
    // Members' passwords are hashed at full scrypt cost: setting up takes a while on a busy machine.
  }, 120_000);

  afterAll(() => gateway.close());

  it("shows an operator every account by name, with money equal to the admin usage API's", async () => {
    const overview = await as('operator', 'GET', '/console/api/overview');
    expect(overview.status).toBe(200);
    const byName = Object.fromEntries(
      overview.body.byAccount.map((group: { accountName: string }) => [group.accountName, group]),
    );
    for (const [name, accountId] of [
      ['team-a', teamA],
      ['team-b', teamB],
    ] as const) {
      const admin = await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`);
      expect(byName[name].requests).toBe(admin.body.totals.requests);
      expect(byName[name].cost).toBe(admin.body.totals.cost);
      expect(byName[name].cost).toBeGreaterThan(0);
    }
    const keyGroup = overview.body.byKey.find((group: { keyId: string }) => group.keyId === keyA.id);
    expect(keyGroup).toMatchObject({ keyName: 'a-service', accountName: 'team-a' });
    expect(overview.body.byModel.map((group: { model: string }) => group.model)).toContain('demo-1');
    expect(overview.body.byDay.reduce((sum: number, day: { cost: number }) => sum + day.cost, 0)).toBeCloseTo(
      overview.body.totals.cost,
      6,
    );
  });

  it('narrows the overview to the account, and to a member’s own keys', async () => {
    const accountAdmin = await as('abe', 'GET', '/console/api/overview');
    expect(accountAdmin.body.byAccount.map((group: { accountId: string }) => group.accountId)).toEqual([teamA]);
    const member = await as('mia', 'GET', '/console/api/overview');
    expect(member.body.byKey.map((group: { keyId: string }) => group.keyId)).toEqual([membersKey.id]);
    expect((await as('mia', 'GET', `/console/api/overview?accountId=${teamB}`)).status).toBe(403);
    expect((await as('abe', 'GET', `/console/api/requests?accountId=${teamB}`)).status).toBe(403);
    expect((await as('mia', 'GET', `/console/api/requests?keyId=${keyA.id}`)).status).toBe(404);
  });

  it('pages through the whole request log with its cursor, each record once, filtered as asked', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await as(
        'operator',
        'GET',
        `/console/api/requests?accountId=${teamA}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((row: { requestId: string }) => row.requestId));
      cursor = page.body.nextCursor;
    } while (cursor);
    const admin = await gateway.admin('GET', `/admin/v1/usage?accountId=${teamA}&limit=1000`);
    expect(seen).toEqual(admin.body.data.map((row: { requestId: string }) => row.requestId));
    expect(new Set(seen).size).toBe(seen.length);

    const failed = await as('operator', 'GET', `/console/api/requests?accountId=${teamA}&httpStatus=200`);
    expect(failed.body.data.every((row: { httpStatus: number }) => row.httpStatus === 200)).toBe(true);
    const byKey = await as('operator', 'GET', `/console/api/requests?keyId=${keyB.id}`);
    expect(byKey.body.data.map((row: { keyId: string }) => row.keyId)).toEqual([keyB.id, keyB.id]);
    const tampered = await as('operator', 'GET', `/console/api/requests?accountId=${teamB}&cursor=x.y`);
    expect(tampered.status).toBe(400);
  });

  it('exports a page of the log as CSV, its next cursor in a header', async () => {
    const csv = await as('operator', 'GET', `/console/api/requests?accountId=${teamB}&format=csv&limit=1`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]!.split(',')).toEqual(expect.arrayContaining(['time', 'requestId', 'keyId', 'model', 'cost']));
    expect(lines).toHaveLength(2);
    expect(csv.headers.get('x-next-cursor')).toBeTruthy();
  });

  it("lets an operator rename another account's key, and shows when each key was last used", async () => {
    const keys = await as('operator', 'GET', `/console/api/keys?accountId=${teamB}`);
    const listed = keys.body.data.find((key: { id: string }) => key.id === keyB.id);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 600_000);
    const renamed = await as('operator', 'PATCH', `/console/api/keys/${keyB.id}`, { name: 'b-renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('b-renamed');
    const unused = (await gateway.admin('POST', '/admin/v1/keys', { accountId: teamB })).body;
    expect((await gateway.admin('GET', `/admin/v1/keys/${unused.id}`)).body.lastUsedAt).toBeNull();
  });

  it('lets a member rename their key but not lift its limits, and refuses models the account lacks', async () => {
    expect((await as('mia', 'PATCH', `/console/api/keys/${membersKey.id}`, { name: 'mia desktop' })).status).toBe(200);
    expect((await as('mia', 'PATCH', `/console/api/keys/${membersKey.id}`, { rateLimit: { rpm: 5 } })).status).toBe(
      403,
    );
    const wrongModel = await as('mia', 'PATCH', `/console/api/keys/${membersKey.id}`, { models: ['no-such-model'] });
    expect(wrongModel.status).toBe(400);
    expect((await as('mia', 'PATCH', `/console/api/keys/${keyA.id}`, { name: 'not mine' })).status).toBe(404);
  });

  it('shows members the price of each model they may call', async () => {
    const models = await as('mia', 'GET', '/console/api/models');
    expect(models.body.data.find((model: { id: string }) => model.id === 'demo-1').pricing).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
    });
  });

  it('tests a channel with one small request and reports its recent health, for operators only', async () => {
    const demo = await as('operator', 'POST', '/console/api/channels/demo/test');
    expect(demo.body).toMatchObject({ ok: true, model: 'demo-1' });
    expect(demo.body.latencyMs).toEqual(expect.any(Number));
    await gateway.admin('PUT', '/admin/v1/channels/closed-port', {
      type: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-never-echoed-upstream-key-0001',
      models: ['unreachable-model'],
    });
    const closed = await as('operator', 'POST', '/console/api/channels/closed-port/test');
    expect(closed.body).toMatchObject({ ok: false, model: 'unreachable-model' });
    expect(closed.body.message).toEqual(expect.any(String));
    expect(JSON.stringify(closed.body)).not.toContain('sk-never-echoed-upstream-key-0001');
    expect((await as('operator', 'POST', '/console/api/channels/no-such-channel/test')).status).toBe(404);
    expect((await as('abe', 'POST', '/console/api/channels/demo/test')).status).toBe(403);

    const health = await as('operator', 'GET', '/console/api/channels/health');
    expect(health.status).toBe(200);
    const demoHealth = health.body.data.find((channel: { id: string }) => channel.id === 'demo');
    expect(demoHealth.requests).toBeGreaterThanOrEqual(8);
    expect(demoHealth.lastSuccessAt).toEqual(expect.any(String));
    expect((await as('mia', 'GET', '/console/api/channels/health')).status).toBe(403);
  });
});
