import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalidValue } from '../errors.js';
import { upstreamHostPolicyActive, upstreamHostRefusal } from '../security/upstream-host-policy.js';

/** What the host resolves to now; nothing when it does not resolve (the connection checks again). */
const addressesOf = async (host: string): Promise<string[]> => {
  if (isIP(host) !== 0) return [];
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
};

/**
 * 400 with `param: "baseUrl"` when a channel's base URL is outside the upstream host policy
 * (security/upstream-host-policy.ts): a host not in the allow-list, or on a stage that refuses them,
 * a loopback, link-local, private or metadata host, or a name that resolves to one. Every channel
 * write (the admin API, `apply`, `GATEWAY_CONFIG`) asks here before it stores anything.
 */
export const requireAllowedDestination = async (channelId: string, baseUrl: string | null | undefined) => {
  if (!baseUrl || !upstreamHostPolicyActive()) return;
  const { hostname } = new URL(baseUrl);
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const reason = upstreamHostRefusal(host, await addressesOf(host));
  if (reason !== undefined) throw invalidValue(`Channel '${channelId}' cannot use this baseUrl: ${reason}.`, 'baseUrl');
};
