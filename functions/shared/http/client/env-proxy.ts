import net from 'node:net';
import { rememberSecret } from '../../security/redact-secrets.js';

/**
 * The proxy a call goes through, from the environment, as Node's own client decides it (Node 24's
 * built-in proxy support): only when `NODE_USE_ENV_PROXY=1` or `--use-env-proxy` turns it on, so that
 * the gateway and any `fetch` in the same process agree on where traffic goes, and a machine whose
 * shell exports `HTTPS_PROXY` for other tools does not reroute the gateway by surprise.
 *
 * - `https_proxy`/`HTTPS_PROXY` for HTTPS targets, `http_proxy`/`HTTP_PROXY` for HTTP ones; the
 *   lower-case name wins when both are set. Only `http://` and `https://` proxies are used; any other
 *   scheme is ignored, as Node ignores it.
 * - `no_proxy`/`NO_PROXY` (lower case wins): comma-separated entries, matched without regard to case
 *   against the target's host name, or `host:port`; `*` matches every host; `.example.com` matches
 *   `example.com` and its subdomains; `*.example.com` matches the subdomains; `10.0.0.1-10.0.0.255`
 *   matches IPv4 addresses in that range.
 * - Credentials in the proxy URL (`http://user:password@proxy:3128`) are sent as a Basic
 *   `Proxy-Authorization`, and the password is known to the redactor from the moment it is read.
 */

export interface Proxy {
  readonly https: boolean;
  readonly hostname: string;
  readonly port: number;
  /** The proxy's URL without its credentials: the part of a pool key, and of a message, that names it. */
  readonly label: string;
  /** `Basic …`, from the URL's credentials. */
  readonly authorization?: string;
}

export class InvalidProxyConfigError extends Error {
  override readonly name = 'InvalidProxyConfigError';
  readonly code = 'ERR_PROXY_INVALID_CONFIG';
}

/** The variables read, in the order of precedence within each pair. */
export const PROXY_VARIABLES = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'no_proxy',
  'NO_PROXY',
] as const;

type Environment = Readonly<Record<string, string | undefined>>;

const USE_ENV_PROXY_FLAG = /(?:^|\s)--use-env-proxy(?:\s|$)/;
const NO_USE_ENV_PROXY_FLAG = /(?:^|\s)--no-use-env-proxy(?:\s|$)/;

/**
 * Whether Node's own client would use the environment's proxies: the command-line flag (directly or
 * in `NODE_OPTIONS`) over the variable, as Node ranks them.
 */
export const envProxyEnabled = (env: Environment, execArgv: readonly string[] = process.execArgv): boolean => {
  const flags = `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  if (NO_USE_ENV_PROXY_FLAG.test(flags)) return false;
  return USE_ENV_PROXY_FLAG.test(flags) || env.NODE_USE_ENV_PROXY === '1';
};

interface Settings {
  readonly https: Proxy | undefined;
  readonly http: Proxy | undefined;
  readonly bypass: readonly string[];
}

const NO_SETTINGS: Settings = { https: undefined, http: undefined, bypass: [] };

/** A proxy URL as the proxy to connect to; `undefined` for a scheme Node does not proxy through. */
const parseProxy = (raw: string): Proxy | undefined => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidProxyConfigError('the proxy URL in the environment is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const https = url.protocol === 'https:';
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  // Known before any request can fail with the proxy's name in its message.
  rememberSecret(password);
  rememberSecret(url.password);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  return {
    https,
    hostname,
    port,
    label: `${url.protocol}//${url.host}`,
    ...(username || password
      ? { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` }
      : {}),
  };
};

let parsed: { readonly source: string; readonly settings: Settings } | undefined;

/** The environment's proxy settings, parsed once per value of the variables. */
const settingsOf = (env: Environment): Settings => {
  const httpsUrl = env.https_proxy || env.HTTPS_PROXY || '';
  const httpUrl = env.http_proxy || env.HTTP_PROXY || '';
  const noProxy = env.no_proxy || env.NO_PROXY || '';
  const source = `${httpsUrl}\n${httpUrl}\n${noProxy}`;
  if (parsed?.source === source) return parsed.settings;
  const settings =
    source === '\n\n'
      ? NO_SETTINGS
      : {
          https: httpsUrl ? parseProxy(httpsUrl) : undefined,
          http: httpUrl ? parseProxy(httpUrl) : undefined,
          bypass: noProxy
            .split(',')
            .map((entry) => entry.trim().toLowerCase())
            .filter((entry) => entry !== ''),
        };
  parsed = { source, settings };
  return settings;
};

const ipv4Number = (address: string): number =>
  address.split('.').reduce((value, part) => value * 256 + Number(part), 0);

/** Whether `entry` of `NO_PROXY` covers the host (lower case) at `port`. */
const bypasses = (entry: string, host: string, port: number): boolean => {
  if (entry === '*' || entry === host || entry === `${host}:${port}`) return true;
  if (entry.startsWith('.')) {
    const suffix = entry.slice(1);
    return host === suffix || host.endsWith(`.${suffix}`);
  }
  if (entry.startsWith('*.')) return host.endsWith(entry.slice(1));
  const dash = entry.indexOf('-');
  if (dash !== -1 && net.isIPv4(host)) {
    const start = entry.slice(0, dash).trim();
    const end = entry.slice(dash + 1).trim();
    if (!net.isIPv4(start) || !net.isIPv4(end)) return false;
    const value = ipv4Number(host);
    return value >= ipv4Number(start) && value <= ipv4Number(end);
  }
  return false;
};

/**
 * The proxy a connection to `target` goes through, or `undefined` to connect directly. Throws
 * `InvalidProxyConfigError` when proxying is on and the URL that applies is not a URL.
 */
export const proxyFor = (
  target: { readonly https: boolean; readonly hostname: string; readonly port: number },
  env: Environment = process.env,
): Proxy | undefined => {
  if (!envProxyEnabled(env)) return undefined;
  const settings = settingsOf(env);
  const proxy = target.https ? settings.https : settings.http;
  if (!proxy) return undefined;
  // A URL writes an IPv6 target in brackets; NO_PROXY entries are matched either way.
  const host = target.hostname.toLowerCase();
  const bracketed = net.isIPv6(host) ? `[${host}]` : host;
  for (const entry of settings.bypass)
    if (bypasses(entry, host, target.port) || (bracketed !== host && bypasses(entry, bracketed, target.port)))
      return undefined;
  return proxy;
};
