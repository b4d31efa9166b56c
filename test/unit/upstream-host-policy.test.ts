import fc from 'fast-check';
import {
  ALLOWED_HOSTS_VARIABLE,
  PRIVATE_ADDRESSES_VARIABLE,
  upstreamHostPolicyActive,
  upstreamHostRefusal,
} from '../../functions/shared/security/upstream-host-policy.js';

/** The upstream host policy: which hosts a deployed stage refuses, what the allow-list admits. */

const saved = { allowed: process.env[ALLOWED_HOSTS_VARIABLE], private: process.env[PRIVATE_ADDRESSES_VARIABLE] };

const setPolicy = (privateAddresses: string | undefined, allowed: string | undefined) => {
  if (privateAddresses === undefined) delete process.env[PRIVATE_ADDRESSES_VARIABLE];
  else process.env[PRIVATE_ADDRESSES_VARIABLE] = privateAddresses;
  if (allowed === undefined) delete process.env[ALLOWED_HOSTS_VARIABLE];
  else process.env[ALLOWED_HOSTS_VARIABLE] = allowed;
};

afterEach(() => setPolicy(saved.private, saved.allowed));

const octet = fc.integer({ min: 0, max: 255 });
const hex = (value: number) => value.toString(16);

/** An IPv4 address within `first.second…` where `secondRange` bounds the second octet. */
const ipv4In = (first: number, secondMin = 0, secondMax = 255) =>
  fc
    .tuple(fc.integer({ min: secondMin, max: secondMax }), octet, octet)
    .map(([second, third, fourth]) => `${first}.${second}.${third}.${fourth}`);

const privateIpv4 = fc.oneof(
  ipv4In(10),
  ipv4In(127),
  ipv4In(169, 254, 254),
  ipv4In(172, 16, 31),
  ipv4In(192, 168, 168),
  ipv4In(0),
);

/** The same IPv4 address in the IPv6 forms that reach it: `::ffff:a.b.c.d` and `::ffff:abcd:efgh`. */
const mappedForms = (address: string): string[] => {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  return [`::ffff:${address}`, `::ffff:${hex((a << 8) | b)}:${hex((c << 8) | d)}`, `[::ffff:${address}]`];
};

const group = fc.integer({ min: 0, max: 0xffff }).map(hex);
const privateIpv6 = fc.oneof(
  fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), group, group).map(([first, x, y]) => `${hex(first)}:${x}::${y}`),
  fc.tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), group).map(([first, x]) => `${hex(first)}::${x}`),
  fc.constantFrom('::1', '::', '[::1]', 'fd00:ec2::254'),
);

const publicAddress = fc.constantFrom(
  '8.8.8.8',
  '1.1.1.1',
  '52.94.236.248',
  '2606:4700:4700::1111',
  '172.32.0.1',
  '11.0.0.1',
);

describe('on a stage that refuses private addresses', () => {
  beforeEach(() => setPolicy('deny', undefined));

  it('refuses every loopback, link-local and private IPv4 address, and every IPv6 form of one', () => {
    fc.assert(
      fc.property(privateIpv4, (address) => {
        for (const form of [address, ...mappedForms(address)])
          expect(upstreamHostRefusal(form)).toEqual(expect.any(String));
      }),
    );
  });

  it('refuses every unique-local and link-local IPv6 address and the loopback', () => {
    fc.assert(fc.property(privateIpv6, (address) => expect(upstreamHostRefusal(address)).toEqual(expect.any(String))));
  });

  it('refuses the metadata and local host names whatever they resolve to', () => {
    for (const host of [
      'localhost',
      'api.localhost',
      'metadata.google.internal',
      'METADATA.google.internal.',
      'instance-data',
    ])
      expect(upstreamHostRefusal(host, ['8.8.8.8'])).toEqual(expect.any(String));
  });

  it('refuses a public name that resolves to a private address', () => {
    fc.assert(
      fc.property(privateIpv4, (address) =>
        expect(upstreamHostRefusal('models.example.com', ['8.8.8.8', address])).toMatch(address),
      ),
    );
  });

  it('calls public hosts and addresses', () => {
    fc.assert(fc.property(publicAddress, (address) => expect(upstreamHostRefusal(address)).toBeUndefined()));
    expect(upstreamHostRefusal('api.openai.com', ['162.159.140.245'])).toBeUndefined();
  });

  it('calls a private host the allow-list names', () => {
    setPolicy('deny', 'models.internal.example, *.vpc.example ,10.20.0.0/16,[::1]');

    expect(upstreamHostRefusal('models.internal.example', ['10.1.2.3'])).toBeUndefined();
    expect(upstreamHostRefusal('a.b.vpc.example', ['192.168.1.1'])).toBeUndefined();
    expect(upstreamHostRefusal('10.20.3.4')).toBeUndefined();
    expect(upstreamHostRefusal('::1')).toBeUndefined();
    expect(upstreamHostRefusal('10.21.0.1')).toMatch(/allow-list/);
    expect(upstreamHostRefusal('api.openai.com', ['162.159.140.245'])).toMatch(/allow-list/);
    expect(upstreamHostRefusal('vpc.example')).toMatch(/allow-list/);
  });
});

describe('without any setting (the local runtime)', () => {
  beforeEach(() => setPolicy(undefined, undefined));

  it('is off, so loopback upstreams (fake upstreams, Ollama) are called', () => {
    expect(upstreamHostPolicyActive()).toBe(false);
    fc.assert(fc.property(privateIpv4, (address) => expect(upstreamHostRefusal(address)).toBeUndefined()));
  });

  it('still keeps to an allow-list when one is set', () => {
    setPolicy(undefined, 'api.openai.com');

    expect(upstreamHostPolicyActive()).toBe(true);
    expect(upstreamHostRefusal('api.openai.com', ['10.0.0.1'])).toBeUndefined();
    expect(upstreamHostRefusal('evil.example')).toMatch(/allow-list/);
  });
});
