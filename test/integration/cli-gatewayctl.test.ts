import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const CLI = resolve('bin/gatewayctl.js');
let gateway: TestGateway;
let folder: string;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI as an operator would: a child process with node (the launcher loads tsx itself). */
const gatewayctl = (args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? '', GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey, ...env },
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

const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
};

beforeAll(async () => {
  gateway = await startTestGateway();
  folder = await mkdtemp(join(tmpdir(), 'gatewayctl-'));
});

afterAll(async () => {
  await gateway?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('gatewayctl', () => {
  test('manages accounts, keys, models and channels end to end, and the issued key works', async () => {
    const account = await json(['accounts', 'create', '--name', 'CLI team', '--quota', '5', '--rpm', '30']);
    expect(account).toMatchObject({ name: 'CLI team', quota: { limit: 5, used: 0 }, rateLimit: { rpm: 30 } });

    const table = await gatewayctl(['accounts', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(table.stdout).toContain('CLI team');

    const updated = await json(['accounts', 'update', account.id, '--status', 'active', '--tpm', '5000']);
    expect(updated.rateLimit).toEqual({ tpm: 5000 });
    expect((await json(['accounts', 'get', account.id])).id).toBe(account.id);

    const issued = await json([
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'ci',
      '--allowed-ips',
      '127.0.0.0/8,::1/128',
    ]);
    expect(issued.key).toMatch(/^sk-/);
    expect(issued.allowedIps).toEqual(['127.0.0.0/8', '::1/128']);
    const chat = await gateway.request('POST', '/v1/chat/completions', {
      key: issued.key,
      body: { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);

    const keys = await gatewayctl(['keys', 'list', '--account', account.id]);
    expect(keys.stdout).toContain(issued.id);
    expect(keys.stdout).not.toContain(issued.key);

    expect((await json(['models', 'put', 'demo-1', '--input', '1', '--output', '2'])).pricing).toEqual({
      inputPerMTok: 1,
      outputPerMTok: 2,
    });
    expect((await gatewayctl(['models', 'list'])).stdout).toContain('demo-1');

    const channel = await json(['channels', 'put', 'extra-demo', '--type', 'demo', '--models', 'demo-2']);
    expect(channel).toMatchObject({ id: 'extra-demo', type: 'demo', models: ['demo-2'] });
    expect((await gatewayctl(['channels', 'list'])).stdout).toContain('extra-demo');
    expect((await json(['channels', 'delete', 'extra-demo'])).deleted).toBe(true);

    const usage = await gatewayctl(['usage', '--account', account.id]);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain('demo-1');
    expect(usage.stdout).toMatch(/1 requests/);

    expect((await json(['keys', 'revoke', issued.id])).status).toBe('revoked');
    // Some twenty CLI processes, each starting Node and tsx: well over jest's default on a busy machine.
  }, 120_000);

  test('apply -f applies a YAML config through the admin API, again and again', async () => {
    const file = join(folder, 'gateway.yaml');
    await writeFile(
      file,
      [
        'models:',
        '  - id: demo-1',
        '    pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 }',
        'accounts:',
        '  - name: Applied',
        '    quota: { limit: 10 }',
        '    keys:',
        '      - key: sk-appliedkey0123456789abcdefghijABCDEFGHIJ',
        '',
      ].join('\n'),
    );
    for (let run = 0; run < 2; run += 1) {
      const result = await gatewayctl(['apply', '-f', file]);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('1 models, 1 accounts, 1 keys');
    }
    const chat = await gateway.request('POST', '/v1/chat/completions', {
      key: 'sk-appliedkey0123456789abcdefghijABCDEFGHIJ',
      body: { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);
  });

  test('an invalid config file is reported with its path and field, and nothing is sent', async () => {
    const file = join(folder, 'bad.yaml');
    await writeFile(file, 'accounts:\n  - name: X\n    qouta: 3\n');
    const result = await gatewayctl(['apply', '-f', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid config file');
    expect(result.stderr).toContain('accounts[0].qouta');
  });

  test('a URL nobody listens on is a clear connection error', async () => {
    const result = await gatewayctl(['accounts', 'list'], { GATEWAY_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+ \(connection refused/);
  });

  test('a wrong or non-admin key is a clear authentication error', async () => {
    const wrong = await gatewayctl(['accounts', 'list'], {
      GATEWAY_ADMIN_KEY: 'sk-wrongkey0123456789abcdefghijABCDEFGHIJ',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('The admin key was refused (401 invalid_api_key');

    const { key } = await gateway.createAccountWithKey();
    const user = await gatewayctl(['accounts', 'list'], { GATEWAY_ADMIN_KEY: key });
    expect(user.code).toBe(1);
    expect(user.stderr).toContain('not allowed to use the admin API (403 forbidden');
  });

  test('a missing key or an unknown command is a usage error', async () => {
    expect((await gatewayctl(['accounts', 'list'], { GATEWAY_ADMIN_KEY: '' })).code).toBe(2);
    const unknown = await gatewayctl(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'frobnicate'");
  });
});
