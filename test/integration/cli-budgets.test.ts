import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** `gatewayctl`'s budgets on accounts, keys and members, and its members command, against a real gateway. */

const CLI = resolve('bin/gatewayctl.js');
let gateway: TestGateway;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const gatewayctl = (args: readonly string[]): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? '', GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
        timeout: 20_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const json = async (args: readonly string[]) => {
  const result = await gatewayctl([...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const budgetOf = (limitUsd: number, period: string, alertAt: number[]) =>
  expect.objectContaining({ limitUsd, period, alertAt, spentUsd: 0, remainingUsd: limitUsd });

describe('gatewayctl budgets', () => {
  test('sets, changes and removes an account budget', async () => {
    const created = await json(['accounts', 'create', '--name', 'Budgeted', '--budget', '500', '--period', 'month']);
    expect(created.budget).toEqual(budgetOf(500, 'month', [0.8, 1]));
    expect(created.budget.resetsAt).toMatch(/-01T00:00:00\.000Z$/);

    const changed = await json([
      'accounts',
      'update',
      created.id,
      '--budget',
      '20',
      '--period',
      'day',
      '--alert-at',
      '0.5,0.9',
    ]);
    expect(changed.budget).toEqual(budgetOf(20, 'day', [0.5, 0.9]));
    // Another change leaves the budget as it is.
    expect((await json(['accounts', 'update', created.id, '--name', 'Renamed'])).budget).toEqual(changed.budget);

    const table = await gatewayctl(['accounts', 'list']);
    expect(table.stdout.split('\n')[0]).toContain('BUDGET SPENT/LIMIT');
    expect(table.stdout).toMatch(/Renamed.*0\/20 day/);

    expect((await json(['accounts', 'update', created.id, '--no-budget'])).budget).toBeNull();
  });

  test('sets a budget on a key when it is created and when it is updated', async () => {
    const { id: accountId } = await json(['accounts', 'create', '--name', 'Keys with budgets']);
    const issued = await json(['keys', 'create', '--account', accountId, '--budget', '5', '--period', 'week']);
    expect(issued.budget).toEqual(budgetOf(5, 'week', [0.8, 1]));

    const updated = await json([
      'keys',
      'update',
      issued.id,
      '--budget',
      '7',
      '--period',
      'total',
      '--alert-at',
      'none',
    ]);
    expect(updated.budget).toEqual(
      expect.objectContaining({ limitUsd: 7, period: 'total', alertAt: [], resetsAt: null }),
    );
    expect((await gatewayctl(['keys', 'list', '--account', accountId])).stdout).toContain('0/7 total');
    expect((await json(['keys', 'update', issued.id, '--no-budget'])).budget).toBeNull();
  });

  test('members: put with a budget, list, change the budget keeping the role, delete', async () => {
    const { id: accountId } = await json(['accounts', 'create', '--name', 'Members']);
    const put = await json([
      'members',
      'put',
      'Ada@Example.com',
      '--account',
      accountId,
      '--role',
      'account-admin',
      '--budget',
      '50',
      '--period',
      'month',
    ]);
    expect(put).toMatchObject({ id: 'ada@example.com', accountId, role: 'account-admin' });
    expect(put.budget).toEqual(budgetOf(50, 'month', [0.8, 1]));

    const listed = await gatewayctl(['members', 'list', '--account', accountId]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^EMAIL\s+ACCOUNT\s+ROLE\s+BUDGET/);
    expect(listed.stdout).toMatch(/ada@example\.com.*account-admin.*0\/50 month/);

    // Only the budget given: the member keeps their account and role.
    const changed = await json(['members', 'put', 'ada@example.com', '--budget', '10', '--period', 'day']);
    expect(changed).toMatchObject({ accountId, role: 'account-admin' });
    expect(changed.budget).toEqual(budgetOf(10, 'day', [0.8, 1]));
    expect((await json(['members', 'put', 'ada@example.com', '--no-budget'])).budget).toBeNull();

    const removed = await gatewayctl(['members', 'delete', 'ada@example.com']);
    expect(removed.stdout).toContain('Removed member ada@example.com');
    expect((await json(['members', 'list', '--account', accountId])).data).toEqual([]);
  });

  test.each([
    [['accounts', 'create', '--name', 'X', '--budget', '5'], '--budget needs --period'],
    [['accounts', 'create', '--name', 'X', '--budget', '5', '--period', 'year'], "got 'year'"],
    [['accounts', 'create', '--name', 'X', '--budget', 'lots', '--period', 'day'], "got 'lots'"],
    [['accounts', 'create', '--name', 'X', '--period', 'day'], 'go with --budget'],
    [['accounts', 'update', 'acct', '--no-budget', '--budget', '5'], '--no-budget removes'],
    [['keys', 'update', 'key', '--budget', '5', '--period', 'day', '--alert-at', '0.5,x'], '--alert-at expects'],
    [['members', 'put', 'new@example.com'], 'Missing --account'],
  ])('refuses %j with a usage error', async (args, message) => {
    const result = await gatewayctl(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  test('the API refuses an alert fraction out of range, and the message says so', async () => {
    const result = await gatewayctl([
      'accounts',
      'create',
      '--name',
      'X',
      '--budget',
      '5',
      '--period',
      'day',
      '--alert-at',
      '0',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('alertAt');
  });
});
