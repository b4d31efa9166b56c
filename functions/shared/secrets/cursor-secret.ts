import { GatewayError } from '../errors.js';
import { cacheTtlMs } from '../store/ttl-cache.js';
import { secretsManager, secretsManagerSdk } from './secrets-client.js';

/**
 * The key that signs page cursors (accounting/usage-cursor.ts). On a deployed stage it is a secret
 * the stack creates with a random value (`GATEWAY_CURSOR_SECRET_ARN`), read once per process and kept
 * in memory: a constant built into the code would let anyone who reads the code forge a cursor.
 * Locally, without the variable, `GATEWAY_CURSOR_SECRET` or a fixed local value signs them.
 */

export const CURSOR_SECRET_ARN_VARIABLE = 'GATEWAY_CURSOR_SECRET_ARN';

const LOCAL_KEY = 'model-gateway usage cursor v1';

let loaded: { readonly arn: string | undefined; readonly key: Promise<string> } | undefined;

const unavailable = (cause: unknown) =>
  new GatewayError('The cursor key could not be read from Secrets Manager; try again.', {
    status: 503,
    type: 'server_error',
    code: 'service_unavailable',
    expose: true,
    cause,
  });

const readSecret = async (arn: string): Promise<string> => {
  const [client, { GetSecretValueCommand }] = await Promise.all([secretsManager(), secretsManagerSdk()]);
  const { SecretString: value } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!value) throw new Error('the cursor secret holds no string');
  return value;
};

/**
 * Reads the signing key, once per process (a failed read is tried again by the next request; with
 * caching turned off, on every request). Routes
 * that read or write a cursor wait on it first (`withCursorKey`); no other request does.
 */
export const loadCursorKey = (): Promise<string> => {
  const arn = process.env[CURSOR_SECRET_ARN_VARIABLE] || undefined;
  // With caching turned off (GATEWAY_CACHE_TTL_MS=0), every route reads as a fresh function would.
  if (loaded && loaded.arn === arn && cacheTtlMs() > 0) return loaded.key;
  const key = arn
    ? readSecret(arn).catch((error: unknown) => {
        loaded = undefined;
        throw unavailable(error);
      })
    : Promise.resolve(process.env.GATEWAY_CURSOR_SECRET ?? LOCAL_KEY);
  loaded = { arn, key };
  return key;
};

let current: string | undefined;

/** The signing key, once `loadCursorKey` has settled; the local key before that (never on a deployed stage). */
export const cursorKey = (): string => {
  if (!process.env[CURSOR_SECRET_ARN_VARIABLE]) return process.env.GATEWAY_CURSOR_SECRET ?? LOCAL_KEY;
  if (current === undefined)
    throw new Error('The cursor key is read before loadCursorKey settled: wrap the route in withCursorKey.');
  return current;
};

/** A route that pages with cursors, run once the signing key is at hand. */
export const withCursorKey =
  <Request, Response>(route: (request: Request) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    current = await loadCursorKey();
    return route(request);
  };
