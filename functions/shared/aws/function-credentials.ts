import { readFileSync } from 'node:fs';
import { ConnectionPool } from '../http/client/connection-pool.js';
import { exchangeWithin } from '../http/client/exchange-within.js';
import { bodyText } from '../http/client/response-body.js';
import { targetOf } from '../http/client/url-target.js';

/**
 * A function's AWS credentials, as Lambda hands them over. An on-demand environment has its role's
 * credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` for its whole
 * life. Where an environment outlives them or is started from a snapshot (SnapStart, and long-lived
 * environments), Lambda serves them from a local endpoint instead, named by
 * `AWS_CONTAINER_CREDENTIALS_FULL_URI` with a token in `AWS_CONTAINER_AUTHORIZATION_TOKEN`: they are
 * fetched there and fetched again before they expire. The store's signed calls and, in the Lambda
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

/** Fetched again this long before they expire, as the SDK does. */
const REFRESH_BEFORE_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;

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

/** Where the container credentials are, or undefined when the environment names no (usable) endpoint. */
const endpointOf = (environment: Environment): URL | undefined => {
  const full = environment.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  const relative = environment.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
  if (full) return URL.canParse(full) ? new URL(full) : undefined;
  if (relative)
    return URL.canParse(relative, 'http://169.254.170.2') ? new URL(relative, 'http://169.254.170.2') : undefined;
  return undefined;
};

/** The token to present, from the environment or the file it names (read each time: the file is rotated). */
const tokenOf = (environment: Environment): string | undefined => {
  const file = environment.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  if (file) return readFileSync(file, 'utf8').trim();
  return environment.AWS_CONTAINER_AUTHORIZATION_TOKEN;
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

const fetchOnce = async (url: URL, token: string | undefined): Promise<FunctionCredentials> => {
  // Refused when asked for, not when the environment is read: a function that makes no AWS call
  // must still start.
  if (!isLocalEndpoint(url)) {
    throw new Error(`The container credentials endpoint must be a local HTTP one, not ${url.host}.`);
  }
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
    FETCH_TIMEOUT_MS,
    () => new Error('The container credentials endpoint did not answer.'),
  );
  const text = await bodyText(answer.body);
  if (answer.status !== 200) throw new Error(`The container credentials endpoint answered ${answer.status}.`);
  return parseAnswer(text);
};

/** Credentials from the endpoint, kept until shortly before they expire; one fetch at a time. */
const containerCredentials = (url: URL, environment: Environment): CredentialsProvider => {
  /** The credentials in hand (a settled promise, handed out as it is), and until when they serve. */
  let current: Promise<FunctionCredentials> | undefined;
  let renewAt = 0;
  let fetching: Promise<FunctionCredentials> | undefined;
  return () => {
    if (current && Date.now() < renewAt) return current;
    fetching ??= Promise.resolve()
      .then(() => fetchOnce(url, tokenOf(environment)))
      .then(
        (fetched) => {
          current = Promise.resolve(fetched);
          renewAt = fetched.expiration ? fetched.expiration.getTime() - REFRESH_BEFORE_MS : Number.POSITIVE_INFINITY;
          fetching = undefined;
          return fetched;
        },
        (error: unknown) => {
          fetching = undefined;
          throw error;
        },
      );
    return fetching;
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
export const functionCredentials = (environment: Environment): CredentialsProvider | undefined => {
  const keys = accessKeysOf(environment);
  if (keys) return constantly(keys);
  const url = endpointOf(environment);
  return url ? containerCredentials(url, environment) : undefined;
};
