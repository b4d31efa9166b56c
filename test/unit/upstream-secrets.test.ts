import { jest } from '@jest/globals';
import { GatewayError } from '../../functions/shared/errors.js';
import { channelWithKey } from '../../functions/shared/routing/channel-credentials.js';
import { UpstreamError } from '../../functions/shared/upstream/upstream-errors.js';
import { deleteChannelKey, saveChannelKey } from '../../functions/shared/secrets/channel-key.js';
import {
  resetSecretsManager,
  secretsManager,
  secretsManagerSdk,
} from '../../functions/shared/secrets/secrets-client.js';
import {
  deleteUpstreamKey,
  forgetUpstreamKeys,
  readUpstreamKey,
  storeUpstreamKey,
  UPSTREAM_KEY_CACHE_TTL_MS,
} from '../../functions/shared/secrets/upstream-secrets.js';
import type { Channel } from '../../functions/shared/store/channels.js';
import { refreshesSettled } from '../../functions/shared/store/ttl-cache.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager.js';
import { rejectionOf } from '../support/rejection-of.js';

const PREFIX = 'model-gateway/test/channels';
const savedEnvironment = { prefix: process.env.UPSTREAM_SECRET_PREFIX, endpoint: process.env.SECRETS_MANAGER_ENDPOINT };

let secrets: FakeSecretsManager;

const channel = (fields: Partial<Channel> = {}): Channel => ({
  id: 'openai-main',
  type: 'openai',
  baseUrl: 'http://127.0.0.1:9/v1',
  models: ['gpt-test'],
  modelMap: {},
  endpoints: null,
  priority: 0,
  weight: 1,
  enabled: true,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...fields,
});

const restore = (name: string, value: string | undefined) => {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
};

beforeAll(async () => {
  secrets = await startFakeSecretsManager();
  process.env.SECRETS_MANAGER_ENDPOINT = secrets.endpoint;
  resetSecretsManager();
});

beforeEach(() => {
  process.env.UPSTREAM_SECRET_PREFIX = PREFIX;
  forgetUpstreamKeys();
});

afterAll(async () => {
  restore('UPSTREAM_SECRET_PREFIX', savedEnvironment.prefix);
  restore('SECRETS_MANAGER_ENDPOINT', savedEnvironment.endpoint);
  resetSecretsManager();
  forgetUpstreamKeys();
  await secrets.close();
});

describe('storeUpstreamKey', () => {
  it('creates the secret <prefix>/<channel id> and returns its ARN', async () => {
    const arn = await storeUpstreamKey('store-new', 'sk-upstream-new');

    const secret = secrets.secret(`${PREFIX}/store-new`);
    expect(secret).toMatchObject({ arn, value: 'sk-upstream-new', versions: 1 });
    expect(secret?.tags).toEqual([{ Key: 'model-gateway:channel', Value: 'store-new' }]);
  });

  it('puts a new value into an existing secret, keeping its ARN', async () => {
    const first = await storeUpstreamKey('store-rotate', 'sk-upstream-old');

    const second = await storeUpstreamKey('store-rotate', 'sk-upstream-rotated');

    expect(second).toBe(first);
    expect(secrets.secret(first)).toMatchObject({ value: 'sk-upstream-rotated', versions: 2 });
  });

  it('restores a secret scheduled for deletion and gives it the new value', async () => {
    const arn = await storeUpstreamKey('store-restore', 'sk-upstream-before');
    await deleteUpstreamKey(arn);

    const again = await storeUpstreamKey('store-restore', 'sk-upstream-after');

    expect(again).toBe(arn);
    expect(secrets.secret(arn)).toMatchObject({ value: 'sk-upstream-after', deletion: undefined });
  });

  it('turns a Secrets Manager failure into a 502 GatewayError without the key', async () => {
    secrets.inject('CreateSecret', { type: 'AccessDeniedException', message: 'not authorized' });

    const error = await rejectionOf(storeUpstreamKey('store-denied', 'sk-upstream-denied'));

    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', code: 'upstream_error', expose: true });
    expect((error as Error).message).toContain('AccessDeniedException');
    expect((error as Error).message).not.toContain('sk-upstream-denied');
  });
});

describe('deleteUpstreamKey', () => {
  it('schedules the secret for deletion with a recovery window', async () => {
    const arn = await storeUpstreamKey('delete-window', 'sk-upstream-delete');

    await deleteUpstreamKey(arn);

    expect(secrets.secret(arn)?.deletion).toEqual({ recoveryWindowInDays: 7 });
  });

  it('succeeds for a secret already gone or already scheduled for deletion', async () => {
    const arn = await storeUpstreamKey('delete-twice', 'sk-upstream-twice');
    await deleteUpstreamKey(arn);

    await expect(deleteUpstreamKey(arn)).resolves.toBeUndefined();
    await expect(deleteUpstreamKey(`${arn}-never-made`)).resolves.toBeUndefined();
  });
});

describe('readUpstreamKey', () => {
  it('reads a key once and answers the next read from memory', async () => {
    const arn = await storeUpstreamKey('read-cached', 'sk-upstream-cached');
    const before = secrets.calls('GetSecretValue');

    expect(await readUpstreamKey(arn)).toBe('sk-upstream-cached');
    expect(await readUpstreamKey(arn)).toBe('sk-upstream-cached');

    expect(secrets.calls('GetSecretValue') - before).toBe(1);
  });

  it('near the end of its five minutes answers from memory and reads the key again in the background', async () => {
    const arn = await storeUpstreamKey('read-refreshed', 'sk-upstream-before');
    const before = secrets.calls('GetSecretValue');
    expect(await readUpstreamKey(arn)).toBe('sk-upstream-before');
    // Rotated by another function (the admin function's write forgets the key only in its own process).
    const [client, { PutSecretValueCommand }] = await Promise.all([secretsManager(), secretsManagerSdk()]);
    await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'sk-upstream-after' }));
    // Past the reload point of the longest life (75 % of 5 minutes), before the shortest ends (80 %).
    jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 0.78 * UPSTREAM_KEY_CACHE_TTL_MS);
    try {
      expect(await readUpstreamKey(arn)).toBe('sk-upstream-before');
      await refreshesSettled();
      expect(secrets.calls('GetSecretValue') - before).toBe(2);
      expect(await readUpstreamKey(arn)).toBe('sk-upstream-after');
      expect(secrets.calls('GetSecretValue') - before).toBe(2);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('shares one call among concurrent reads of the same key', async () => {
    const arn = await storeUpstreamKey('read-concurrent', 'sk-upstream-concurrent');
    const before = secrets.calls('GetSecretValue');

    const values = await Promise.all([readUpstreamKey(arn), readUpstreamKey(arn), readUpstreamKey(arn)]);

    expect(values).toEqual(['sk-upstream-concurrent', 'sk-upstream-concurrent', 'sk-upstream-concurrent']);
    expect(secrets.calls('GetSecretValue') - before).toBe(1);
  });

  it('does not remember a failed read', async () => {
    const arn = await storeUpstreamKey('read-retry', 'sk-upstream-retry');
    secrets.inject('GetSecretValue', { type: 'AccessDeniedException' });

    await expect(readUpstreamKey(arn)).rejects.toMatchObject({ status: 502, code: 'upstream_error' });

    expect(await readUpstreamKey(arn)).toBe('sk-upstream-retry');
  });

  it('reads the new value after this process stored one', async () => {
    const arn = await storeUpstreamKey('read-rotated', 'sk-upstream-first');
    await readUpstreamKey(arn);

    await storeUpstreamKey('read-rotated', 'sk-upstream-second');

    expect(await readUpstreamKey(arn)).toBe('sk-upstream-second');
  });
});

describe('saveChannelKey', () => {
  it('stores a given key in Secrets Manager and returns only its ARN', async () => {
    const fields = await saveChannelKey('save-new', 'sk-upstream-save', undefined, { type: 'openai' });

    expect(fields).toEqual({ apiKeySecretArn: secrets.secret(`${PREFIX}/save-new`)?.arn });
    expect(secrets.secret(`${PREFIX}/save-new`)?.value).toBe('sk-upstream-save');
  });

  it('keeps the stored reference when the write names no key', async () => {
    const existing = channel({
      id: 'save-keep',
      apiKeySecretArn: await storeUpstreamKey('save-keep', 'sk-upstream-keep'),
    });
    const before = secrets.calls('PutSecretValue') + secrets.calls('CreateSecret');

    const fields = await saveChannelKey('save-keep', undefined, existing, existing);

    expect(fields).toEqual({ apiKeySecretArn: existing.apiKeySecretArn });
    expect(secrets.calls('PutSecretValue') + secrets.calls('CreateSecret')).toBe(before);
  });

  it('deletes the secret when the key is removed with null', async () => {
    const arn = await storeUpstreamKey('save-remove', 'sk-upstream-remove');

    const existing = channel({ id: 'save-remove', apiKeySecretArn: arn });
    const fields = await saveChannelKey('save-remove', null, existing, existing);

    expect(fields).toEqual({});
    expect(secrets.secret(arn)?.deletion).toBeDefined();
  });

  it('moves a key kept in the record into Secrets Manager on the next write', async () => {
    const existing = channel({ id: 'save-migrate', apiKey: 'sk-upstream-legacy' });
    const fields = await saveChannelKey('save-migrate', undefined, existing, existing);

    expect(fields).toEqual({ apiKeySecretArn: secrets.secret(`${PREFIX}/save-migrate`)?.arn });
    expect(secrets.secret(`${PREFIX}/save-migrate`)?.value).toBe('sk-upstream-legacy');
  });

  it('keeps the key in the record when no prefix is set', async () => {
    delete process.env.UPSTREAM_SECRET_PREFIX;
    const before = secrets.calls('CreateSecret');

    const existing = channel({ apiKey: 'sk-upstream-local' });
    expect(await saveChannelKey('save-local', 'sk-upstream-local', undefined, existing)).toEqual({
      apiKey: 'sk-upstream-local',
    });
    expect(await saveChannelKey('save-local', undefined, existing, existing)).toEqual({
      apiKey: 'sk-upstream-local',
    });
    expect(secrets.calls('CreateSecret')).toBe(before);
  });
});

describe('deleteChannelKey', () => {
  it('deletes the secret of a channel that has one', async () => {
    const arn = await storeUpstreamKey('delete-channel', 'sk-upstream-channel');

    await deleteChannelKey(channel({ id: 'delete-channel', apiKeySecretArn: arn }));

    expect(secrets.secret(arn)?.deletion).toBeDefined();
  });
});

describe('channelWithKey', () => {
  it('returns a channel without a secret reference unchanged', async () => {
    const local = channel({ apiKey: 'sk-upstream-in-record' });

    expect(await channelWithKey(local)).toBe(local);
  });

  it('fills apiKey from Secrets Manager, and reads the secret once for two relays', async () => {
    const arn = await storeUpstreamKey('relay-cached', 'sk-upstream-relay');
    const stored = channel({ id: 'relay-cached', apiKeySecretArn: arn });
    const before = secrets.calls('GetSecretValue');

    const first = await channelWithKey(stored);
    const second = await channelWithKey(stored);

    expect(first).toEqual({ ...stored, apiKey: 'sk-upstream-relay' });
    expect(second.apiKey).toBe('sk-upstream-relay');
    expect(stored.apiKey).toBeUndefined();
    expect(secrets.calls('GetSecretValue') - before).toBe(1);
  });

  it('turns a failed read into a retryable 502 UpstreamError that names no secret', async () => {
    const arn = await storeUpstreamKey('relay-failing', 'sk-upstream-failing');
    secrets.inject('GetSecretValue', { type: 'AccessDeniedException', message: `not allowed on ${arn}` });

    const error = await rejectionOf(channelWithKey(channel({ id: 'relay-failing', apiKeySecretArn: arn })));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', code: 'upstream_error', retryable: true });
    expect((error as Error).message).not.toContain('sk-upstream-failing');
    expect((error as Error).message).not.toContain(arn);
  });
});
