import { GatewayError } from '../errors.js';
import { TtlCache } from '../store/ttl-cache.js';
import { secretsManager, secretsManagerSdk } from './secrets-client.js';
import { upstreamSecretName, upstreamSecretPrefix } from './upstream-secret-prefix.js';

/**
 * Upstream API keys in Secrets Manager (DESIGN §4): one secret per channel, named
 * `<UPSTREAM_SECRET_PREFIX>/<channel id>`; the channels table holds only its ARN. Nothing here logs a
 * key or puts one in an error message.
 */

/** How long a function keeps a key it has read: a rotation reaches running functions within this. */
export const UPSTREAM_KEY_CACHE_TTL_MS = 5 * 60_000;

/** A removed key stays recoverable this long (the shortest window Secrets Manager allows). */
export const RECOVERY_WINDOW_DAYS = 7;

const errorName = (error: unknown): string => (error instanceof Error ? error.name : 'Error');

/** A Secrets Manager failure as the client sees it: the operation and the SDK's error name, never a value. */
const secretStoreError = (what: string, cause: unknown) =>
  new GatewayError(`Secrets Manager could not ${what} (${errorName(cause)}).`, {
    status: 502,
    type: 'upstream_error',
    code: 'upstream_error',
    expose: true,
    cause,
  });

/** Keys read, by secret ARN: concurrent reads of one key share one GetSecretValue call. */
const keys = new TtlCache<string>(() => UPSTREAM_KEY_CACHE_TTL_MS);

/** Forgets every key read in this process (tests, and a local runtime that restarts). */
export const forgetUpstreamKeys = (): void => keys.clear();

/** Creates the secret, or gives the existing one a new value; the ARN either way. */
const putKeySecret = async (name: string, channelId: string, apiKey: string): Promise<string | undefined> => {
  const [client, { CreateSecretCommand, PutSecretValueCommand, RestoreSecretCommand }] = await Promise.all([
    secretsManager(),
    secretsManagerSdk(),
  ]);
  try {
    const created = await client.send(
      new CreateSecretCommand({
        Name: name,
        SecretString: apiKey,
        Description: `model-gateway: upstream API key of channel ${channelId}`,
        Tags: [{ Key: 'model-gateway:channel', Value: channelId }],
      }),
    );
    return created.ARN;
  } catch (error) {
    const reason = errorName(error);
    // Scheduled for deletion (key removed or channel deleted within the recovery window): bring it back.
    if (reason === 'InvalidRequestException') await client.send(new RestoreSecretCommand({ SecretId: name }));
    else if (reason !== 'ResourceExistsException') throw error;
  }
  const updated = await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: apiKey }));
  return updated.ARN;
};

/**
 * Stores a channel's upstream key as the secret `<prefix>/<channelId>`: created when missing, a new
 * version when it exists (rotation). Returns the secret's ARN, the reference the channel record keeps.
 * Failures are a 502 `GatewayError` that names neither the key nor its value.
 */
export const storeUpstreamKey = async (channelId: string, apiKey: string): Promise<string> => {
  const prefix = upstreamSecretPrefix();
  if (!prefix) throw new Error('UPSTREAM_SECRET_PREFIX is not set: upstream keys are kept in the store.');
  const what = `store the upstream API key of channel '${channelId}'`;
  let arn: string | undefined;
  try {
    arn = await putKeySecret(upstreamSecretName(prefix, channelId), channelId, apiKey);
  } catch (error) {
    throw secretStoreError(what, error);
  }
  if (!arn) throw secretStoreError(what, new Error('the answer held no ARN'));
  keys.forget(arn);
  return arn;
};

/**
 * Deletes a key's secret with a recovery window. A secret already gone, or already scheduled for
 * deletion, counts as deleted, so a retried removal succeeds.
 */
export const deleteUpstreamKey = async (ref: string): Promise<void> => {
  keys.forget(ref);
  try {
    const [client, { DeleteSecretCommand }] = await Promise.all([secretsManager(), secretsManagerSdk()]);
    await client.send(new DeleteSecretCommand({ SecretId: ref, RecoveryWindowInDays: RECOVERY_WINDOW_DAYS }));
  } catch (error) {
    const name = errorName(error);
    if (name === 'ResourceNotFoundException' || name === 'InvalidRequestException') return;
    throw secretStoreError('delete an upstream API key', error);
  }
};

const getKey = async (ref: string): Promise<string> => {
  let value: string | undefined;
  try {
    const [client, { GetSecretValueCommand }] = await Promise.all([secretsManager(), secretsManagerSdk()]);
    ({ SecretString: value } = await client.send(new GetSecretValueCommand({ SecretId: ref })));
  } catch (error) {
    throw secretStoreError('read an upstream API key', error);
  }
  if (!value) throw secretStoreError('read an upstream API key', new Error('the secret holds no string'));
  return value;
};

/**
 * A key by its secret's ARN, from memory when read in the last five minutes (and read again in the
 * background near the end of them). Concurrent reads of one key share one call, and a failed read is
 * not remembered: the next request tries again.
 */
export const readUpstreamKey = (ref: string): Promise<string> => keys.getOrLoad(ref, () => getKey(ref));
