import { summarize } from '../../test/simulate/write-report.js';
import type { WriteRecorder } from '../support/store-recorder.js';

/**
 * `npm run simulate`'s judgement of a run: how a kind of hot item's writes would spread at the target
 * rate, and whether the run's picks of its keys were even. Runs are made up here, with a seeded
 * generator, so that each verdict is the one the numbers call for.
 */

/** A deterministic generator (mulberry32), so the made-up runs are the same every time. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/**
 * A run of `requests` requests whose spend shards (of `shards`) are picked `picks` times, each pick
 * followed by `writesPerPick` writes to the same shard; `pickShard` says which shard a pick takes.
 */
const run = (options: {
  requests: number;
  shards: number;
  picks: number;
  writesPerPick: number;
  pickShard: (random: () => number) => number;
}): WriteRecorder => {
  const random = seeded(7);
  const writes = new Map<string, number>();
  const picks = new Map<string, number>();
  for (let pick = 0; pick < options.picks; pick += 1) {
    const key = `spend:acct_hot#${options.pickShard(random)}`;
    picks.set(key, (picks.get(key) ?? 0) + 1);
    writes.set(key, (writes.get(key) ?? 0) + options.writesPerPick);
  }
  return {
    writes,
    picks,
    commands: new Map(),
    calls: new Map(),
    perSecond: new Map(),
    totalWrites: () => [...writes.values()].reduce((sum, count) => sum + count, 0),
    stop: () => undefined,
  };
};

const spendRow = (recorder: WriteRecorder, requests: number) =>
  summarize(recorder, requests, 10_000).rows.find((row) => row.kind === 'spend:<account>#<n>')!;

const uniform = (shards: number) => (random: () => number) => Math.floor(random() * shards);

describe('the simulation report', () => {
  test('even picks pass, one write a pick per request', () => {
    const row = spendRow(
      run({ requests: 4000, shards: 60, picks: 4000, writesPerPick: 1, pickShard: uniform(60) }),
      4000,
    );
    expect(row.skewed).toBe(false);
    expect(row.writesPerRequest).toBe(1);
  });

  test('even picks pass when requests are charged together: fewer picks than requests, several writes each', () => {
    // 4,000 requests charged in 400 turns; each turn's shard then takes three settlement writes.
    const row = spendRow(
      run({ requests: 4000, shards: 60, picks: 400, writesPerPick: 4, pickShard: uniform(60) }),
      4000,
    );
    expect(row.skewed).toBe(false);
    expect(row.writesPerRequest).toBeCloseTo(0.4);
  });

  test('a shard picked far more often than the others is a skew, and fails the run', () => {
    const favouring = (random: () => number) => (random() < 0.2 ? 0 : 1 + Math.floor(random() * 59));
    const row = spendRow(run({ requests: 4000, shards: 60, picks: 400, writesPerPick: 4, pickShard: favouring }), 4000);
    expect(row.skewed).toBe(true);
    expect(row.ok).toBe(false);
  });
});
