import { ipAllowed, parseCidr } from '../../functions/shared/auth/ip-allow-list.js';
import { usageCost } from '../../functions/shared/accounting/pricing.js';
import { formatResetDuration } from '../../functions/shared/accounting/rate-limit-headers.js';

describe('usageCost', () => {
  test('prompt tokens are priced at the input price and completion tokens at the output price', () => {
    expect(
      usageCost({ inputPerMTok: 2, outputPerMTok: 8 }, { promptTokens: 1_000_000, completionTokens: 500_000 }),
    ).toBe(6);
  });

  test('cached prompt tokens are priced at cachedInputPerMTok when the model sets it', () => {
    const pricing = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };
    expect(usageCost(pricing, { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 400_000 })).toBeCloseTo(
      1.4,
      12,
    );
  });

  test('cached prompt tokens cost the input price when the model has no cached price', () => {
    expect(
      usageCost({ inputPerMTok: 2, outputPerMTok: 8 }, { promptTokens: 10, completionTokens: 0, cachedTokens: 10 }),
    ).toBe(0.00002);
  });

  test('reasoning tokens are part of the completion and cost the output price, not more', () => {
    expect(
      usageCost(
        { inputPerMTok: 0, outputPerMTok: 10 },
        { promptTokens: 0, completionTokens: 100, reasoningTokens: 60 },
      ),
    ).toBe(0.001);
  });

  test('a model without pricing costs nothing', () => {
    expect(usageCost(null, { promptTokens: 100, completionTokens: 100 })).toBe(0);
  });
});

describe('formatResetDuration', () => {
  test.each([
    [20, '20ms'],
    [1000, '1s'],
    [37_200, '38s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
  ])('%d ms reads %s', (milliseconds, text) => {
    expect(formatResetDuration(milliseconds)).toBe(text);
  });
});

describe('IP allow-lists', () => {
  test('IPv4 and IPv6 CIDRs and single addresses parse; anything else does not', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('203.0.113.7')).toEqual({ address: '203.0.113.7', prefix: 32, family: 'ipv4' });
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', 'example.com', '10.0.0/8', '10.0.0.0/x', '1.2.3.4/8/9']) {
      expect(parseCidr(bad)).toBeUndefined();
    }
  });

  test('an address inside a listed range is allowed and one outside is not', () => {
    const list = ['10.0.0.0/8', '2001:db8::/32'];
    expect(ipAllowed(list, '10.200.3.4')).toBe(true);
    expect(ipAllowed(list, '11.0.0.1')).toBe(false);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '2001:db9::5')).toBe(false);
  });

  test('an IPv4 address reported as IPv4-mapped IPv6 matches IPv4 ranges', () => {
    expect(ipAllowed(['127.0.0.0/8'], '::ffff:127.0.0.1')).toBe(true);
  });
});
