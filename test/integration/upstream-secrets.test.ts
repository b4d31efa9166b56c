import { resetSecretsManager } from '../../functions/shared/secrets/secrets-client.js';
import { forgetUpstreamKeys } from '../../functions/shared/secrets/upstream-secrets.js';
import { getChannel } from '../../functions/shared/store/channels.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// The gateway's Secrets Manager endpoint and cache are set and reset through its process.
const describe = describeInProcess(
  "points the gateway's Secrets Manager client at a fake through its process environment",
);

/**
 * The gateway as deployed keeps upstream keys (DESIGN §4): `UPSTREAM_SECRET_PREFIX` set, Secrets
 * Manager played by a real HTTP fake of its JSON protocol, a fake OpenAI upstream behind the channels.
 */

const PREFIX = 'model-gateway/integration/channels';
const MODEL = 'gpt-secret';
const environment = ['UPSTREAM_SECRET_PREFIX', 'SECRETS_MANAGER_ENDPOINT'] as const;
const savedEnvironment = Object.fromEntries(environment.map((name) => [name, process.env[name]]));

let secrets: FakeSecretsManager;
let upstream: FakeUpstream;
let gateway: TestGateway;
let userKey: string;

const putChannel = (id: string, fields: Record<string, unknown> = {}) =>
  gateway.admin('PUT', `/admin/v1/channels/${id}`, {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: [MODEL],
    ...fields,
  });

const chat = (model = MODEL) =>
  gateway.request('POST', '/v1/chat/completions', {
    key: userKey,
    body: { model, messages: [{ role: 'user', content: 'hello' }] },
  });

const secretOf = (channelId: string) => secrets.secret(`${PREFIX}/${channelId}`);

beforeAll(async () => {
  secrets = await startFakeSecretsManager();
  upstream = await startFakeUpstream();
  process.env.UPSTREAM_SECRET_PREFIX = PREFIX;
  process.env.SECRETS_MANAGER_ENDPOINT = secrets.endpoint;
  resetSecretsManager();
  forgetUpstreamKeys();
  gateway = await startTestGateway();
  ({ key: userKey } = await gateway.createAccountWithKey());
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await secrets?.close();
  for (const name of environment) {
    if (savedEnvironment[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnvironment[name];
  }
  resetSecretsManager();
  forgetUpstreamKeys();
});

describe('admin writes of a channel key', () => {
  it('keeps a key put through the admin API in Secrets Manager, and only its ARN in the channels table', async () => {
    const apiKey = 'sk-upstream-kept-in-secrets-manager-01';

    const put = await putChannel('sm-put', { apiKey });

    expect(put.status).toBe(200);
    expect(put.body.hasApiKey).toBe(true);
    expect(put.text).not.toContain(apiKey);
    const record = await getChannel('sm-put');
    expect(record?.apiKey).toBeUndefined();
    expect(record?.apiKeySecretArn).toBe(secretOf('sm-put')?.arn);
    expect(secretOf('sm-put')?.value).toBe(apiKey);
    const read = await gateway.admin('GET', '/admin/v1/channels/sm-put');
    expect(read.body.hasApiKey).toBe(true);
    expect(read.text).not.toContain(apiKey);
    expect(read.text).not.toContain('arn:');
  });

  it('rotates a key by putting a new value into the same secret', async () => {
    await putChannel('sm-rotate', { apiKey: 'sk-upstream-before-rotation-0001' });
    const arn = secretOf('sm-rotate')?.arn;

    const rotated = await putChannel('sm-rotate', { apiKey: 'sk-upstream-after-rotation-0002' });

    expect(rotated.status).toBe(200);
    expect(secretOf('sm-rotate')).toMatchObject({ arn, value: 'sk-upstream-after-rotation-0002', versions: 2 });
    expect((await getChannel('sm-rotate'))?.apiKeySecretArn).toBe(arn);
  });

  it('keeps the stored secret when a PUT names no key', async () => {
    await putChannel('sm-keep', { apiKey: 'sk-upstream-kept-across-puts-0003' });
    const writes = secrets.calls('CreateSecret') + secrets.calls('PutSecretValue');

    const replaced = await putChannel('sm-keep', { weight: 3 });

    expect(replaced.body).toMatchObject({ hasApiKey: true, weight: 3 });
    expect(secrets.calls('CreateSecret') + secrets.calls('PutSecretValue')).toBe(writes);
    expect((await getChannel('sm-keep'))?.apiKeySecretArn).toBe(secretOf('sm-keep')?.arn);
  });

  it('removes a key with apiKey null: the secret is scheduled for deletion and the record forgets it', async () => {
    await putChannel('sm-remove', { apiKey: 'sk-upstream-to-be-removed-0004' });

    const cleared = await putChannel('sm-remove', { apiKey: null });

    expect(cleared.body.hasApiKey).toBe(false);
    expect(secretOf('sm-remove')?.deletion).toEqual({ recoveryWindowInDays: 7 });
    const record = await getChannel('sm-remove');
    expect(record?.apiKeySecretArn).toBeUndefined();
    expect(record?.apiKey).toBeUndefined();
  });

  it('gives a channel a key again after it was removed, restoring its secret', async () => {
    await putChannel('sm-again', { apiKey: 'sk-upstream-first-life-0005' });
    await putChannel('sm-again', { apiKey: null });

    const again = await putChannel('sm-again', { apiKey: 'sk-upstream-second-life-0006' });

    expect(again.status).toBe(200);
    expect(secretOf('sm-again')).toMatchObject({ value: 'sk-upstream-second-life-0006', deletion: undefined });
  });

  it('deletes the secret of a deleted channel', async () => {
    await putChannel('sm-delete', { apiKey: 'sk-upstream-of-a-deleted-channel-07' });

    const deleted = await gateway.admin('DELETE', '/admin/v1/channels/sm-delete');

    expect(deleted.status).toBe(200);
    expect(secretOf('sm-delete')?.deletion).toBeDefined();
    expect(await getChannel('sm-delete')).toBeUndefined();
  });

  it('stores the keys of an applied config the same way', async () => {
    const apiKey = 'sk-upstream-declared-in-config-0008';

    const applied = await gateway.admin('POST', '/admin/v1/apply', {
      channels: [{ id: 'sm-config', type: 'openai', baseUrl: upstream.baseUrl, apiKey, models: ['gpt-config'] }],
    });

    expect(applied.status).toBe(200);
    expect(secretOf('sm-config')?.value).toBe(apiKey);
    const record = await getChannel('sm-config');
    expect(record?.apiKey).toBeUndefined();
    expect(record?.apiKeySecretArn).toBe(secretOf('sm-config')?.arn);
  });

  it('answers a Secrets Manager failure with a 502 envelope that holds no key, and writes no record', async () => {
    const apiKey = 'sk-upstream-refused-by-secrets-0009';
    secrets.inject('CreateSecret', {
      type: 'AccessDeniedException',
      message: 'not authorized to perform CreateSecret',
    });

    const refused = await putChannel('sm-refused', { apiKey });

    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(refused.body.error.message).toContain('AccessDeniedException');
    expect(refused.text).not.toContain(apiKey);
    expect(await getChannel('sm-refused')).toBeUndefined();
  });
});

/**
 * These need the relay to fill a channel's key with `channelWithKey` (functions/shared/routing/
 * channel-credentials.ts) before calling the upstream.
 */
describe('relaying with a key from Secrets Manager', () => {
  it('sends the upstream the key held in Secrets Manager', async () => {
    const apiKey = 'sk-upstream-relayed-from-secrets-0010';
    await putChannel('sm-relay', { apiKey, models: ['gpt-relay'] });

    const completion = await chat('gpt-relay');

    expect(completion.status).toBe(200);
    expect(upstream.received.at(-1)?.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  it('reads the secret once for two completions', async () => {
    await putChannel('sm-cached', { apiKey: 'sk-upstream-read-once-0011', models: ['gpt-cached'] });
    const reads = secrets.calls('GetSecretValue');

    expect((await chat('gpt-cached')).status).toBe(200);
    expect((await chat('gpt-cached')).status).toBe(200);

    expect(secrets.calls('GetSecretValue') - reads).toBe(1);
  });

  it('uses a rotated key on the next request', async () => {
    await putChannel('sm-relay-rotate', { apiKey: 'sk-upstream-old-relay-key-0012', models: ['gpt-rotate'] });
    expect((await chat('gpt-rotate')).status).toBe(200);

    await putChannel('sm-relay-rotate', { apiKey: 'sk-upstream-new-relay-key-0013', models: ['gpt-rotate'] });
    const completion = await chat('gpt-rotate');

    expect(completion.status).toBe(200);
    expect(upstream.received.at(-1)?.headers.authorization).toBe('Bearer sk-upstream-new-relay-key-0013');
  });

  it('answers 502 upstream_error without the key when the secret cannot be read', async () => {
    const apiKey = 'sk-upstream-unreadable-0014';
    await putChannel('sm-unreadable', { apiKey, models: ['gpt-unreadable'] });
    secrets.inject('GetSecretValue', { type: 'AccessDeniedException' });
    const received = upstream.received.length;

    const failed = await chat('gpt-unreadable');

    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(failed.text).not.toContain(apiKey);
    expect(upstream.received.length).toBe(received);
  });
});
