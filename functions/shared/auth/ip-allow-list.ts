import { BlockList, isIP } from 'node:net';
import { forbidden } from '../errors.js';
import type { Principal } from './principal.js';

interface ParsedCidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, how dual-stack sockets report them), as IPv4. */
const unmapped = (address: string): string => IPV4_MAPPED.exec(address)?.[1] ?? address;

/** `10.0.0.0/8`, `2001:db8::/32`, or a single address (a /32 or /128); `undefined` if not one of those. */
export const parseCidr = (value: string): ParsedCidr | undefined => {
  const [rawAddress, rawPrefix, ...rest] = value.trim().split('/');
  if (rest.length > 0 || !rawAddress) return undefined;
  const address = unmapped(rawAddress);
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (rawPrefix !== undefined && !/^\d{1,3}$/.test(rawPrefix)) return undefined;
  const prefix = rawPrefix === undefined ? bits : Number(rawPrefix);
  if (prefix > bits) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
};

export const isCidr = (value: string): boolean => parseCidr(value) !== undefined;

// Principals are cached, so their allow-lists are compiled once per list, not per request.
const compiled = new WeakMap<readonly string[], BlockList>();

const compile = (cidrs: readonly string[]): BlockList => {
  let list = compiled.get(cidrs);
  if (list) return list;
  list = new BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  compiled.set(cidrs, list);
  return list;
};

/** Whether `sourceIp` falls in one of the CIDRs. */
export const ipAllowed = (cidrs: readonly string[], sourceIp: string): boolean => {
  const address = unmapped(sourceIp);
  const version = isIP(address);
  if (version === 0) return false;
  return compile(cidrs).check(address, version === 4 ? 'ipv4' : 'ipv6');
};

/**
 * 403 `forbidden` when the key has an IP allow-list and the request comes from outside it. The
 * address is API Gateway's `requestContext.identity.sourceIp` (the local runtime fills in the socket's).
 */
export const assertIpAllowed = (principal: Pick<Principal, 'allowedIps'>, sourceIp: string | undefined): void => {
  const cidrs = principal.allowedIps;
  if (!cidrs || cidrs.length === 0) return;
  if (sourceIp && ipAllowed(cidrs, sourceIp)) return;
  throw forbidden('This key may not be used from your IP address.');
};
