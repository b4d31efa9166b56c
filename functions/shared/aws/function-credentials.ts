import { readFileSync } from 'node:fs';
import { ConnectionPool } from '../http/client/connection-pool.js';
import { exchangeWithin } from '../http/client/exchange-within.js';
import { bodyText } from '../http/client/response-body.js';
import { targetOf } from '../http/client/url-target.js';
import { rememberSecret } from '../security/redact-secrets.js';

/**
 * A function's AWS credentials, as Lambda hands them over. An on-demand environment has its role's
 * credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` for its whole
 * life. Where an environment outlives them or is started from a snapshot (SnapStart, and long-lived
 * environments, Lambda Managed Instances among them), Lambda serves them from a local endpoint
 * instead, named by `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` or `AWS_CONTAINER_CREDENTIALS_FULL_URI`
 * with a token in `AWS_CONTAINER_AUTHORIZATION_TOKEN` (or the file `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`
 * names): they are fetched there, read as the SDK's HTTP credential provider reads them, and
 * fetched again in the background before they expire. The store's signed calls and, in the Lambda
 * bundles, every SDK client (`infra/build/lambda-credentials.ts`) take their credentials from here.
 */

export interface FunctionCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

export type CredentialsProvider = () => Promise<FunctionCredentials>;

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * When fetched credentials are renewed: from this long before they expire, a call still gets the
 * ones in hand at once while a fetch runs in the background (the SDK refreshes 5 minutes ahead too).
 */
const REFRESH_BEFORE_MS = 5 * 60_000;
/** Closer than this to their expiry, credentials are not handed out: a call waits for new ones. */
const USABLE_BEFORE_MS = 15_000;
/** After a background refresh fails, the next one waits this long (the ones in hand still serve). */
const REFRESH_FAILED_PAUSE_MS = 10_000;
/**
 * Each fetch may take this long: the endpoint is on this machine and answers in milliseconds (the
 * SDK allows 1 s too). A fetch is tried this many times in all, a short pause between tries.
 */
const FETCH_TIMEOUT_MS = 1_000;
const FETCH_ATTEMPTS = 3;
const FETCH_RETRY_PAUSE_MS = 100;

/** The ECS and Lambda agents' address, which a relative URI is a path on (the SDK's `DEFAULT_LINK_LOCAL_HOST`). */
const LINK_LOCAL_ORIGIN = 'http://169.254.170.2';

/**
 * The endpoint's connection, kept alive between fetches. The gateway's own client, not `node:http`:
 * nothing else in a function loads that module, which is some 2 ms of every cold start.
 */
const credentialsPool = new ConnectionPool();

/**
 * Hosts a credentials endpoint may have, as the SDKs allow them over plain HTTP: loopback, and the
 * link-local addresses of the ECS and EKS agents. Lambda's is on loopback.
 */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '169.254.170.2', '169.254.170.23', '[fd00:ec2::23]']);

const isLocalEndpoint = (url: URL): boolean =>
  url.protocol === 'http:' && (LOCAL_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));

/**
 * Where the container credentials are, or undefined when the environment names no (usable) endpoint.
 * As the SDK reads them: a relative URI (a path on the agents' address) wins over a full one.
 */
export const containerCredentialsEndpoint = (environment: Environment): URL | undefined => {
  const relative = environment.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
  const full = environment.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  // Appended, not resolved: a relative URI never names another host.
  const href = relative ? `${LINK_LOCAL_ORIGIN}${relative.startsWith('/') ? '' : '/'}${relative}` : full;
  return href && URL.canParse(href) ? new URL(href) : undefined;
};

/**
 * The token to present, as the SDK picks it: from the file `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`
 * names (read each time: the file is rotated), else `AWS_CONTAINER_AUTHORIZATION_TOKEN`. A token
 * that would break the header's line is refused, as the SDK refuses it.
 */
const tokenOf = (environment: Environment): string | undefined => {
  const file = environment.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  const token = file ? readFileSync(file, 'utf8').trim() : environment.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  if (token && /[\r\n]/.test(token)) throw new Error('The container authorization token holds a line break.');
  return token || undefined;
};

/** The endpoint's answer: `{ AccessKeyId, SecretAccessKey, Token, Expiration }`. */
const parseAnswer = (text: string): FunctionCredentials => {
  const answer = JSON.parse(text) as Record<string, unknown>;
  const { AccessKeyId, SecretAccessKey, Token, Expiration } = answer;
  if (typeof AccessKeyId !== 'string' || typeof SecretAccessKey !== 'string') {
    throw new Error('The container credentials endpoint answered without credentials.');
  }
  const expiration = typeof Expiration === 'string' ? new Date(Expiration) : undefined;
  return {
    accessKeyId: AccessKeyId,
    secretAccessKey: SecretAccessKey,
    ...(typeof Token === 'string' ? { sessionToken: Token } : {}),
    ...(expiration && !Number.isNaN(expiration.getTime()) ? { expiration } : {}),
  };
};

export interface ContainerFetchOptions {
  /** How long one fetch may take. */
  readonly timeoutMs?: number;
}

const fetchOnce = async (url: URL, token: string | undefined, timeoutMs: number): Promise<FunctionCredentials> => {
  const target = targetOf(url.href);
  const answer = await exchangeWithin(
    {
      pool: credentialsPool,
      origin: target.origin,
      method: 'GET',
      target: target.path,
      host: target.host,
      headers: token ? { authorization: token } : {},
    },
    timeoutMs,
    () => new Error('The container credentials endpoint did not answer.'),
  );
  const text = await bodyText(answer.body);
  if (answer.status !== 200) throw new Error(`The container credentials endpoint answered ${answer.status}.`);
  const credentials = parseAnswer(text);
  // From now on no log line or error relayed to a client can carry them.
  rememberSecret(credentials.secretAccessKey);
  rememberSecret(credentials.sessionToken);
  rememberSecret(credentials.accessKeyId);
  return credentials;
};

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** A fetch tried up to FETCH_ATTEMPTS times; the last error when every try failed. */
const fetchWithRetries = async (url: URL, environment: Environment, timeoutMs: number) => {
  // Refused when asked for, not when the environment is read: a function that makes no AWS call
  // must still start. Not worth retrying either.
  if (!isLocalEndpoint(url)) {
    throw new Error(`The container credentials endpoint must be a local HTTP one, not ${url.host}.`);
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetchOnce(url, tokenOf(environment), timeoutMs);
    } catch (error) {
      if (attempt >= FETCH_ATTEMPTS) throw error;
      await pause(FETCH_RETRY_PAUSE_MS * attempt);
    }
  }
};

/**
 * Credentials from the endpoint. Kept while they serve; from REFRESH_BEFORE_MS before they expire a
 * call still gets them at once and a fetch runs in the background, and a fetch that fails leaves
 * them in use until they are too close to expiring (USABLE_BEFORE_MS). Only a call with nothing
 * usable in hand waits for a fetch, and fails with it. One fetch at a time.
 */
const containerCredentials = (
  url: URL,
  environment: Environment,
  options: ContainerFetchOptions,
): CredentialsProvider => {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  /** The credentials in hand (a settled promise, handed out as it is), and the times that rule them. */
  let current: Promise<FunctionCredentials> | undefined;
  let refreshAt = 0;
  let usableUntil = 0;
  let fetching: Promise<FunctionCredentials> | undefined;
  const fetchNew = (): Promise<FunctionCredentials> =>
    (fetching ??= fetchWithRetries(url, environment, timeoutMs).then(
      (fetched) => {
        const expires = fetched.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
        current = Promise.resolve(fetched);
        refreshAt = expires - REFRESH_BEFORE_MS;
        usableUntil = expires - USABLE_BEFORE_MS;
        fetching = undefined;
        return fetched;
      },
      (error: unknown) => {
        fetching = undefined;
        throw error;
      },
    ));
  return () => {
    const now = Date.now();
    if (current && now < refreshAt) return current;
    if (current && now < usableUntil) {
      if (!fetching) {
        fetchNew().catch(() => {
          // The credentials in hand still serve; the next refresh is tried a little later.
          refreshAt = Date.now() + REFRESH_FAILED_PAUSE_MS;
        });
      }
      return current;
    }
    return fetchNew();
  };
};

/** The environment's access keys (with its session token), if it has them. */
export const accessKeysOf = (environment: Environment): FunctionCredentials | undefined => {
  const accessKeyId = environment.AWS_ACCESS_KEY_ID;
  const secretAccessKey = environment.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = environment.AWS_SESSION_TOKEN;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
};

/** A provider of credentials that do not change: one settled promise, not one per call. */
export const constantly = (credentials: FunctionCredentials): CredentialsProvider => {
  const settled = Promise.resolve(credentials);
  return () => settled;
};

/**
 * The credentials `environment` provides: its access keys, or else its container credentials
 * endpoint; undefined when it has neither.
 */
export const functionCredentials = (
  environment: Environment,
  options: ContainerFetchOptions = {},
): CredentialsProvider | undefined => {
  const keys = accessKeysOf(environment);
  if (keys) return constantly(keys);
  const url = containerCredentialsEndpoint(environment);
  return url ? containerCredentials(url, environment, options) : undefined;
};
