import { adminClient, listAll } from '../../cli/admin-client.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';

/**
 * The admin lists (accounts, an account's keys, members) page like the usage API: `limit` items from
 * `cursor`, with `nextCursor` while more remain, in a fixed order; without `limit`, the whole list.
 * The gateway under test may hold other tests' items (a shared gateway in remote mode): each case
 * reads every page and looks at its own items within them.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway.close();
});

interface Listed {
  readonly id: string;
  readonly createdAt?: string;
}

/** Every page of a list, `limit` at a time; fails if a page is larger or a cursor repeats. */
const allPages = async (path: string, limit: number): Promise<{ items: Listed[]; pages: number }> => {
  const items: Listed[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const separator = path.includes('?') ? '&' : '?';
    const page = await gateway.admin(
      'GET',
      `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    pages += 1;
    items.push(...(page.body.data as Listed[]));
    cursor = page.body.nextCursor as string | undefined;
    if (cursor === undefined) return { items, pages };
    expect(page.body.data).toHaveLength(limit);
    expect(seen.has(cursor)).toBe(false);
    seen.add(cursor);
  }
};

const expectInvalid = (result: HttpResult, param: string) => {
  expect(result.status).toBe(400);
  expect(result.body.error).toMatchObject({ type: 'invalid_request_error', param });
};

describe('admin list pages', () => {
  test('accounts: every account once, oldest first, the same as the whole list', async () => {
    const made: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      made.push((await gateway.admin('POST', '/admin/v1/accounts', { name: `paged ${index}` })).body.id as string);
    }
    const whole = await gateway.admin('GET', '/admin/v1/accounts');
    expect(whole.status).toBe(200);
    expect(whole.body.nextCursor).toBeUndefined();

    const { items, pages } = await allPages('/admin/v1/accounts', 2);
    expect(items.map((account) => account.id)).toEqual((whole.body.data as Listed[]).map((account) => account.id));
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(items.map((account) => account.id).filter((id) => made.includes(id))).toEqual(made);
    const times = items.map((account) => account.createdAt!);
    expect([...times].sort()).toEqual(times);
  });

  test("an account's keys, and a key created while paging comes once, after the cursor", async () => {
    const { body: account } = await gateway.admin('POST', '/admin/v1/accounts', { name: 'paged keys' });
    const keys: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      keys.push((await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id })).body.id as string);
    }
    const first = await gateway.admin('GET', `/admin/v1/keys?accountId=${account.id}&limit=2`);
    expect(first.body.data.map((key: Listed) => key.id)).toEqual(keys.slice(0, 2));
    // A key added meanwhile comes after the others: the next page holds both.
    keys.push((await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id })).body.id as string);
    const second = await gateway.admin(
      'GET',
      `/admin/v1/keys?accountId=${account.id}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.data.map((key: Listed) => key.id)).toEqual(keys.slice(2));
    expect(second.body.nextCursor).toBeUndefined();
    expect((await allPages(`/admin/v1/keys?accountId=${account.id}`, 1)).items.map((key) => key.id)).toEqual(keys);
  });

  test('members, by e-mail address', async () => {
    const { body: account } = await gateway.admin('POST', '/admin/v1/accounts', { name: 'paged members' });
    const emails = ['c@paged.example', 'a@paged.example', 'b@paged.example'];
    for (const email of emails) {
      const put = await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId: account.id, role: 'member' });
      expect(put.status).toBe(201);
    }
    const { items } = await allPages(`/admin/v1/members?accountId=${account.id}`, 2);
    expect(items.map((member) => member.id)).toEqual([...emails].sort());
  });

  test('a cursor that was edited, or comes from another list, and a page size out of range are 400s', async () => {
    const { body: account } = await gateway.admin('POST', '/admin/v1/accounts', { name: 'paged refusals' });
    await gateway.admin('POST', '/admin/v1/accounts', { name: 'paged refusals 2' });
    const page = await gateway.admin('GET', '/admin/v1/accounts?limit=1');
    const cursor = page.body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const edited = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    expectInvalid(
      await gateway.admin('GET', `/admin/v1/accounts?limit=1&cursor=${encodeURIComponent(edited)}`),
      'cursor',
    );
    expectInvalid(
      await gateway.admin('GET', `/admin/v1/keys?accountId=${account.id}&cursor=${encodeURIComponent(cursor)}`),
      'cursor',
    );
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      expectInvalid(await gateway.admin('GET', `/admin/v1/accounts?limit=${limit}`), 'limit');
    }
  });

  test("gatewayctl's reader of a whole list follows every page to the same list", async () => {
    const { body: account } = await gateway.admin('POST', '/admin/v1/accounts', { name: 'paged by the CLI' });
    for (let index = 0; index < 5; index += 1) await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id });
    const whole = await gateway.admin('GET', `/admin/v1/keys?accountId=${account.id}`);
    const read = await listAll(adminClient(gateway.url, gateway.adminKey), `/admin/v1/keys?accountId=${account.id}`, 2);
    expect(read.data).toEqual(whole.body.data);
    expect(read.data).toHaveLength(5);
  });
});
