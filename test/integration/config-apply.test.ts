import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyGatewayConfig } from '../../functions/shared/config/apply-config.js';
import { deriveAccountId, loadGatewayConfigFile } from '../../functions/shared/config/gateway-config.js';
import { itInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Every case here starts its own gateway with a config file, which a running gateway cannot take.
const test = itInProcess('applies a config file at the start of its own gateway');

const declaredKey = 'sk-declaredInConfig0123456789abcdefghij';
const upstreamSecret = 'upstream-secret-from-env-41b7';
const accountId = deriveAccountId('Config Team');

const configText = `
channels:
  - id: upstream-a
    type: openai
    baseUrl: http://127.0.0.1:9/v1
    apiKey: \${CONFIG_TEST_UPSTREAM_KEY}
    models: [gpt-4o, gpt-4o-mini]
models:
  - id: gpt-4o
    pricing: { inputPerMTok: 2.5, outputPerMTok: 10 }
    ownedBy: openai
accounts:
  - name: Config Team
    models: [gpt-4o]
    quota: { limit: 100 }
    keys:
      - key: ${declaredKey}
        name: declared
`;

let directory: string;
let configPath: string;

beforeEach(() => {
  process.env.CONFIG_TEST_UPSTREAM_KEY = upstreamSecret;
  directory = mkdtempSync(join(tmpdir(), 'gateway-apply-'));
  configPath = join(directory, 'gateway.yaml');
  writeFileSync(configPath, configText);
});

afterEach(() => {
  delete process.env.CONFIG_TEST_UPSTREAM_KEY;
  rmSync(directory, { recursive: true, force: true });
});

/** Everything the admin API shows of what the config file declares. */
const snapshot = async (gateway: TestGateway) => ({
  channels: (await gateway.admin('GET', '/admin/v1/channels')).body.data,
  models: (await gateway.admin('GET', '/admin/v1/models')).body.data,
  accounts: (await gateway.admin('GET', '/admin/v1/accounts')).body.data.filter(
    (account: { id: string }) => account.id === accountId,
  ),
  keys: (await gateway.admin('GET', `/admin/v1/keys?accountId=${accountId}`)).body.data,
});

const withoutUpdatedAt = ({ updatedAt: _updatedAt, ...rest }: { updatedAt: string }) => rest;

test('a config applied at start serves its declared key, with the declared models only', async () => {
  const gateway = await startTestGateway({ configPath });
  try {
    const models = await gateway.request('GET', '/v1/models', { key: declaredKey });

    expect(models.status).toBe(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).toEqual(['gpt-4o']);
    expect(models.body.data[0].owned_by).toBe('openai');
  } finally {
    await gateway.close();
  }
});

test('the declared channel keeps its upstream key out of every admin answer', async () => {
  const gateway = await startTestGateway({ configPath });
  try {
    const channel = await gateway.admin('GET', '/admin/v1/channels/upstream-a');

    expect(channel.body).toMatchObject({ id: 'upstream-a', hasApiKey: true });
    expect(channel.text).not.toContain(upstreamSecret);
    expect((await gateway.admin('GET', '/admin/v1/channels')).text).not.toContain(upstreamSecret);
  } finally {
    await gateway.close();
  }
});

test('starting twice on the same data directory changes nothing the file declares', async () => {
  const dataDir = join(directory, 'data');
  const first = await startTestGateway({ dataDir, configPath });
  const before = await snapshot(first);
  await first.close();

  const second = await startTestGateway({ dataDir, configPath });
  try {
    const after = await snapshot(second);

    expect(before.accounts).toHaveLength(1);
    expect(before.keys).toHaveLength(1);
    expect(after.accounts).toEqual(
      before.accounts.map((account: object) => ({ ...account, updatedAt: expect.any(String) })),
    );
    expect(after.keys).toEqual(before.keys);
    expect(after.channels.map(withoutUpdatedAt)).toEqual(before.channels.map(withoutUpdatedAt));
    expect(after.models.map(withoutUpdatedAt)).toEqual(before.models.map(withoutUpdatedAt));
    expect((await second.request('GET', '/v1/models', { key: declaredKey })).status).toBe(200);
  } finally {
    await second.close();
  }
});

test('applying again keeps a revoked key revoked, and what the admin API set in fields the file leaves out', async () => {
  const gateway = await startTestGateway({ configPath });
  try {
    const [declared] = (await snapshot(gateway)).keys;
    await gateway.admin('DELETE', `/admin/v1/keys/${declared.id}`);
    await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, { rateLimit: { rpm: 30 } });

    const counts = await applyGatewayConfig(await loadGatewayConfigFile(configPath));

    expect(counts).toEqual({ channels: 1, models: 1, accounts: 1, keys: 1, members: 0, warnings: [] });
    const after = await snapshot(gateway);
    expect(after.keys).toEqual([expect.objectContaining({ id: declared.id, status: 'revoked' })]);
    expect(after.accounts[0]).toMatchObject({ quota: { limit: 100, used: 0 }, rateLimit: { rpm: 30 } });
    expect((await gateway.request('GET', '/v1/models', { key: declaredKey })).status).toBe(401);
  } finally {
    await gateway.close();
  }
});

test('applying a changed file updates the declared fields', async () => {
  const gateway = await startTestGateway({ configPath });
  try {
    writeFileSync(
      configPath,
      configText.replace('limit: 100', 'limit: 250').replace('[gpt-4o, gpt-4o-mini]', '[gpt-4o]'),
    );

    await applyGatewayConfig(await loadGatewayConfigFile(configPath));

    const after = await snapshot(gateway);
    expect(after.accounts[0].quota).toEqual({ limit: 250, used: 0 });
    expect(after.channels.find((channel: { id: string }) => channel.id === 'upstream-a').models).toEqual(['gpt-4o']);
  } finally {
    await gateway.close();
  }
});

test('a declared key held by another account stops the apply with the path of the entry', async () => {
  const gateway = await startTestGateway({ configPath });
  try {
    writeFileSync(configPath, configText.replace('name: Config Team', 'name: Other Team'));

    await expect(applyGatewayConfig(await loadGatewayConfigFile(configPath))).rejects.toThrow(
      /^accounts\[0\]\.keys\[0\]: the key sk-declare… already belongs to account/,
    );
  } finally {
    await gateway.close();
  }
});
