import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const chat = (key: string) =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model: 'demo-1', messages: [{ role: 'user', content: 'hello' }] },
  });

describe('DELETE /admin/v1/accounts/{id}', () => {
  test('deletes the account and every key of it; its usage records stay', async () => {
    const { account, key, keyId } = await gateway.createAccountWithKey();
    const second = await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id });
    expect((await chat(key)).status).toBe(200);

    const deleted = await gateway.admin('DELETE', `/admin/v1/accounts/${account.id}`);

    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: account.id, deleted: true, keysDeleted: 2, membersDeleted: 0 });
    expect((await gateway.admin('GET', `/admin/v1/accounts/${account.id}`)).status).toBe(404);
    expect((await gateway.admin('GET', `/admin/v1/keys/${keyId}`)).status).toBe(404);
    expect((await gateway.admin('GET', `/admin/v1/keys/${second.body.id}`)).status).toBe(404);
    expect((await chat(key)).status).toBe(401);
    expect((await chat(second.body.key)).status).toBe(401);
    // The record of the first chat, stored after its response (on a deployed stage, from the log).
    await waitFor(
      async () => (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data.length >= 1,
    );
  });

  test('answers 404 for an unknown account and 409 for the account of the calling key', async () => {
    const unknown = await gateway.admin('DELETE', '/admin/v1/accounts/acct_missing');
    expect(unknown.status).toBe(404);
    const own = await gateway.admin('DELETE', '/admin/v1/accounts/acct_admin');
    expect(own.status).toBe(409);
    expect(own.body.error.code).toBe('conflict');
    expect((await gateway.admin('GET', '/admin/v1/accounts/acct_admin')).status).toBe(200);
  });

  test('is refused to a user key', async () => {
    const { account, key } = await gateway.createAccountWithKey();
    const refused = await gateway.request('DELETE', `/admin/v1/accounts/${account.id}`, { key });
    expect(refused.status).toBe(403);
  });
});

describe('GET /admin/v1/metrics', () => {
  test('sums what the gateway served, in total, per model and per account', async () => {
    const { account, key } = await gateway.createAccountWithKey();
    const before = (await gateway.admin('GET', '/admin/v1/metrics')).body;
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    expect(
      (
        await gateway.request('POST', '/v1/chat/completions', {
          key,
          body: { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] },
        })
      ).status,
    ).toBe(404);

    // A request is counted once it has ended, after its answer was sent: read until all three are in.
    const deadline = Date.now() + 10_000;
    let after = (await gateway.admin('GET', '/admin/v1/metrics')).body;
    const counted = (summary: typeof after) =>
      summary.byAccount.find((group: { accountId: string }) => group.accountId === account.id)?.requests ?? 0;
    while (counted(after) < 3 && Date.now() < deadline) after = (await gateway.admin('GET', '/admin/v1/metrics')).body;

    // The three chats and the first metrics read itself ended in between (and any re-read above).
    expect(after.total.requests - before.total.requests).toBeGreaterThanOrEqual(4);
    expect(after.total.errors.client - before.total.errors.client).toBe(1);
    const byAccount = after.byAccount.find((group: { accountId: string }) => group.accountId === account.id);
    expect(byAccount).toMatchObject({ requests: 3, errors: { client: 1, server: 0, upstream: 0 } });
    expect(byAccount.totalTokens).toBeGreaterThan(0);
    expect(byAccount.averageMs.overhead).toBeGreaterThanOrEqual(0);
    const demo = after.byModel.find((group: { model: string }) => group.model === 'demo-1');
    expect(demo.requests).toBeGreaterThanOrEqual(2);
    expect(after.byModel.map((group: { model: string }) => group.model)).not.toContain('no-such-model');
  });
});
