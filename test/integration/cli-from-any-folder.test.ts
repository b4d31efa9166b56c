import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const CLI = resolve('bin/gatewayctl.js');
let gateway: TestGateway;
let elsewhere: string;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI as an operator runs it from some other project: another folder, with a tsconfig of its own. */
const gatewayctl = (args: readonly string[]): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: elsewhere,
        env: { PATH: process.env.PATH ?? '', GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
        timeout: 25_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

beforeAll(async () => {
  gateway = await startTestGateway();
  elsewhere = await mkdtemp(join(tmpdir(), 'operator-'));
  // A folder whose compiler settings would break the CLI's sources if the launcher used them.
  await writeFile(
    join(elsewhere, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { experimentalDecorators: true, verbatimModuleSyntax: false, jsx: 'react' } }),
  );
});

afterAll(async () => {
  await gateway?.close();
  if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
});

describe('gatewayctl run from another folder', () => {
  test('deletes an account with its keys, and shows models, metrics and usage', async () => {
    const { account, key } = await gateway.createAccountWithKey({ name: 'leaving team' });
    expect(
      (
        await gateway.request('POST', '/v1/chat/completions', {
          key,
          body: { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] },
        })
      ).status,
    ).toBe(200);

    const models = await gatewayctl(['models', 'list']);
    expect(models.stderr).toBe('');
    expect(models.stdout.split('\n')[0]).toMatch(/^MODEL\s+CHANNELS\s+INPUT \$\/MTOK/);
    expect(models.stdout).toMatch(/demo-1\s+demo/);

    const metrics = await gatewayctl(['metrics']);
    expect(metrics.code).toBe(0);
    expect(metrics.stdout).toMatch(/^TOTAL\s+REQUESTS/m);
    expect(metrics.stdout).toMatch(/^ACCOUNT\s+REQUESTS/m);
    expect(metrics.stdout).toContain(account.id);

    const usage = await gatewayctl(['usage', '--account', account.id, '--json']);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout).totals.requests).toBe(1);

    const deleted = await gatewayctl(['accounts', 'delete', account.id]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`Deleted account ${account.id} and its 1 keys`);
    expect((await gateway.admin('GET', `/admin/v1/accounts/${account.id}`)).status).toBe(404);
  }, 120_000);
});
