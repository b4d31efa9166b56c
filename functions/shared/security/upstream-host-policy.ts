import { BlockList, isIP } from 'node:net';

/**
 * Where the gateway may send requests, and with them the upstream keys it holds. Two settings:
 *
 * - `GATEWAY_UPSTREAM_ALLOWED_HOSTS` (`-c upstreamAllowedHosts`): a comma-separated allow-list of
 *   host names (`api.openai.com`), wildcards for subdomains (`*.openai.azure.com`), addresses and
 *   CIDRs (`10.20.0.0/16`). Set, only these hosts are called; a listed host may resolve to any address,
 *   private ones included (an internal model server named on purpose).
 * - `GATEWAY_UPSTREAM_PRIVATE_ADDRESSES` (`-c upstreamPrivateAddresses`): `deny` refuses loopback,
 *   link-local (the instance metadata endpoints), private and unique-local addresses, IPv4-mapped
 *   forms included, and the metadata host names, unless the allow-list names them. The stack sets
 *   `deny` on every deployed stage by default; unset (the local runtime, the tests) they are allowed,
 *   since fake upstreams and Ollama listen on loopback there.
 *
 * Checked when a channel is written (its `baseUrl`, and the addresses its host resolves to then) and
 * again on every new upstream connection, on the address actually connected to: a public name can be
 * made to resolve to a private address after the write.
 */

export const ALLOWED_HOSTS_VARIABLE = 'GATEWAY_UPSTREAM_ALLOWED_HOSTS';
export const PRIVATE_ADDRESSES_VARIABLE = 'GATEWAY_UPSTREAM_PRIVATE_ADDRESSES';

/** Addresses no upstream needs on a deployed stage. */
const PRIVATE_RANGES: readonly (readonly [address: string, prefix: number, family: 'ipv4' | 'ipv6'])[] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT, shared address space
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local: EC2, ECS and Lambda metadata and credential endpoints
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['::', 96, 'ipv6'], // unspecified, loopback (::1) and IPv4-compatible addresses
  ['fc00::', 7, 'ipv6'], // unique local, EC2's IPv6 metadata endpoint (fd00:ec2::254) among them
  ['fe80::', 10, 'ipv6'], // link-local
];

const privateAddresses = new BlockList();
for (const [address, prefix, family] of PRIVATE_RANGES) privateAddresses.addSubnet(address, prefix, family);

/** Host names of metadata services and of this machine, whatever they resolve to. */
const PRIVATE_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

const IPV4_MAPPED = /^::ffff:(?:0:)?(\d{1,3}(?:\.\d{1,3}){3})$/i;
const IPV4_MAPPED_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** An IPv4 address written as IPv6 (`::ffff:a9fe:a9fe`, `::ffff:169.254.169.254`), as IPv4. */
const unmapped = (address: string): string => {
  const dotted = IPV4_MAPPED.exec(address);
  if (dotted) return dotted[1]!;
  const hex = IPV4_MAPPED_HEX.exec(address);
  if (!hex) return address;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
};

/** A host as URLs write it (`[::1]`), as an address or a lower-case name without a trailing dot. */
const bareHost = (host: string): string => {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.toLowerCase().replace(/\.$/, '');
};

/** Whether an address is loopback, link-local, private or unique-local (IPv4-mapped forms too). */
export const isPrivateAddress = (address: string): boolean => {
  const plain = unmapped(bareHost(address));
  const version = isIP(plain);
  if (version === 0) return false;
  return privateAddresses.check(plain, version === 4 ? 'ipv4' : 'ipv6');
};

/** Whether a host name is one of the metadata or local names, refused by name. */
const isPrivateName = (host: string): boolean => PRIVATE_NAMES.has(host) || host.endsWith('.localhost');

interface AllowList {
  readonly names: ReadonlySet<string>;
  /** `*.example.com` entries, as `.example.com`. */
  readonly suffixes: readonly string[];
  readonly addresses: BlockList;
}

let parsedAllowList: { readonly source: string; readonly list: AllowList | undefined } | undefined;

/** The allow-list, parsed once per value of the variable; `undefined` when it is not set. */
const allowList = (): AllowList | undefined => {
  const source = process.env[ALLOWED_HOSTS_VARIABLE]?.trim() ?? '';
  if (parsedAllowList?.source === source) return parsedAllowList.list;
  let list: AllowList | undefined;
  if (source !== '') {
    const names = new Set<string>();
    const suffixes: string[] = [];
    const addresses = new BlockList();
    for (const raw of source.split(',')) {
      const entry = bareHost(raw.trim());
      if (entry === '') continue;
      const [address, prefix] = entry.split('/');
      const version = isIP(unmapped(address!));
      if (version !== 0) {
        const bits = version === 4 ? 32 : 128;
        const length = prefix === undefined ? bits : Number(prefix);
        if (Number.isInteger(length) && length >= 0 && length <= bits)
          addresses.addSubnet(unmapped(address!), length, version === 4 ? 'ipv4' : 'ipv6');
      } else if (entry.startsWith('*.')) suffixes.push(entry.slice(1));
      else names.add(entry);
    }
    list = { names, suffixes, addresses };
  }
  parsedAllowList = { source, list };
  return list;
};

const listed = (list: AllowList, host: string): boolean => {
  const plain = unmapped(host);
  const version = isIP(plain);
  if (version !== 0) return list.addresses.check(plain, version === 4 ? 'ipv4' : 'ipv6');
  return list.names.has(host) || list.suffixes.some((suffix) => host.endsWith(suffix));
};

const privateDenied = (): boolean => process.env[PRIVATE_ADDRESSES_VARIABLE]?.trim().toLowerCase() === 'deny';

/** Whether any check is on: off, no connection pays for one. */
export const upstreamHostPolicyActive = (): boolean => privateDenied() || allowList() !== undefined;

/**
 * Why a host may not be called, or `undefined` when it may. `addresses` are what the host resolves
 * to, when known: each is checked too (a name listed in the allow-list admits any of its addresses).
 */
export const upstreamHostRefusal = (rawHost: string, addresses: readonly string[] = []): string | undefined => {
  const host = bareHost(rawHost);
  const list = allowList();
  if (list) {
    if (listed(list, host)) return undefined;
    return `the host '${host}' is not in the upstream allow-list (${ALLOWED_HOSTS_VARIABLE})`;
  }
  if (!privateDenied()) return undefined;
  if (isPrivateName(host) || isPrivateAddress(host))
    return `the host '${host}' is a loopback, link-local, private or metadata address, which this stage does not call`;
  const resolved = addresses.find(isPrivateAddress);
  if (resolved !== undefined)
    return `the host '${host}' resolves to ${resolved}, a loopback, link-local or private address, which this stage does not call`;
  return undefined;
};
