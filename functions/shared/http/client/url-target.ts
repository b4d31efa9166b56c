import type { Origin } from './connection-pool.js';

/** Where a request to a URL goes, and what its head says of the host. */
export interface Target {
  readonly origin: Origin;
  /** The request target: path and query. */
  readonly path: string;
  /** The Host header: the host, and the port unless it is the scheme's default. */
  readonly host: string;
  /** `Basic …` from credentials in the URL, sent unless the request has its own Authorization. */
  readonly basicAuthorization?: string;
}

/**
 * URLs parsed once: a channel's few endpoints are called over and over, and parsing a URL and turning
 * it into request options was about 1 % of a request's CPU. Bounded, since a URL can carry a model
 * name.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 512;

export const targetOf = (address: string): Target => {
  const known = targets.get(address);
  if (known) return known;
  const url = new URL(address);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`unsupported protocol ${url.protocol}`);
  const https = url.protocol === 'https:';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  const target: Target = {
    origin: { key: `${url.protocol}//${url.host}`, https, hostname, port },
    path: `${url.pathname}${url.search}`,
    host: url.host,
    ...(url.username || url.password
      ? {
          basicAuthorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
        }
      : {}),
  };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(address, target);
  return target;
};
