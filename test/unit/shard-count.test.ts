import {
  EXACT_REQUESTS_PER_SECOND,
  MAX_SHARDS,
  requestWindowShards,
  spendShards,
  tokenWindowShards,
} from '../../functions/shared/accounting/shard-count.js';

const perMinute = (perSecond: number) => perSecond * 60;

describe('how many shards a budget gets', () => {
  test('a request window up to a few hundred requests/s is one item, so it stays exact', () => {
    expect(requestWindowShards(1)).toBe(1);
    expect(requestWindowShards(perMinute(EXACT_REQUESTS_PER_SECOND))).toBe(1);
    expect(requestWindowShards(perMinute(EXACT_REQUESTS_PER_SECOND) + 60)).toBeGreaterThan(1);
  });

  test.each([301, 1_000, 5_000, 10_000])(
    'a request window of %i requests/s keeps each shard at or under 100 writes/s',
    (perSecond) => {
      const shards = requestWindowShards(perMinute(perSecond));
      expect(perSecond / shards).toBeLessThanOrEqual(100);
    },
  );

  test("a token window gets a shard per million tokens a minute, and at least its request window's shards", () => {
    expect(tokenWindowShards(1_000_000)).toBe(1);
    expect(tokenWindowShards(30_000_000)).toBe(30);
    expect(tokenWindowShards(1_000_000, perMinute(10_000))).toBe(requestWindowShards(perMinute(10_000)));
  });

  test('spend is one item up to 150 requests/s, then at most 250 writes/s per shard (two writes a request)', () => {
    expect(spendShards(undefined)).toBe(1);
    expect(spendShards(perMinute(150))).toBe(1);
    for (const perSecond of [200, 1_000, 10_000]) {
      expect((perSecond * 2) / spendShards(perMinute(perSecond))).toBeLessThanOrEqual(250);
    }
  });

  test('GATEWAY_SPEND_SHARDS sets a floor for accounts without an RPM limit', () => {
    process.env.GATEWAY_SPEND_SHARDS = '16';
    try {
      expect(spendShards(undefined)).toBe(16);
      expect(spendShards(perMinute(10_000))).toBe(80);
    } finally {
      delete process.env.GATEWAY_SPEND_SHARDS;
    }
  });

  test('no budget is split over more shards than one BatchGetItem reads', () => {
    expect(requestWindowShards(perMinute(1_000_000))).toBe(MAX_SHARDS);
    expect(tokenWindowShards(10_000_000_000)).toBe(MAX_SHARDS);
    expect(spendShards(perMinute(1_000_000))).toBe(MAX_SHARDS);
  });
});
