import {
  readShards,
  chargeBudget,
  sliceOf,
  type SlicedBudget,
} from '../../functions/shared/accounting/sliced-budget.js';
import { observeAwsCalls } from '../../functions/shared/aws/aws-call-observer.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { recordWrites } from '../support/store-recorder.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// The embedded store behind a local gateway; the budgets below write its counters table directly.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

let budgets = 0;
const budget = (shards: number, limit: number, options: Partial<SlicedBudget> = {}): SlicedBudget => {
  const id = `test-budget-${(budgets += 1)}`;
  return {
    table: physicalTableName('counters'),
    key: (index) => ({ id: `${id}#${index}` }),
    shards,
    limit,
    attribute: 'count',
    ...options,
  };
};

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('a budget sliced over shards', () => {
  test('takes the charges asked for in one loop turn in one conditional update, each told the count after its own', async () => {
    const target = budget(1, 50);
    const updates: unknown[] = [];
    observeAwsCalls((call) => {
      if (call.operation === 'UpdateItem') updates.push(call.input);
    });
    try {
      const results = await Promise.all([3, 1, 4, 1, 5].map((amount) => chargeBudget(target, amount)));
      expect(results).toEqual([3, 4, 8, 9, 14].map((used) => ({ granted: true, shard: 0, used })));
      expect(updates).toHaveLength(1);
    } finally {
      observeAwsCalls(undefined);
    }
    expect(await readShards(target)).toEqual([14]);
  });

  test('takes the charges of later turns, asked while one is in flight, together once it has settled', async () => {
    const target = budget(1, 50);
    const updates: unknown[] = [];
    observeAwsCalls((call) => {
      if (call.operation === 'UpdateItem') updates.push(call.input);
    });
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    try {
      const first = chargeBudget(target, 2);
      // Two later turns, both before the store answers the first: they wait for it, then go as one.
      await nextTurn();
      const second = chargeBudget(target, 3);
      await nextTurn();
      const third = chargeBudget(target, 4);
      const results = await Promise.all([first, second, third]);
      expect(results).toEqual([2, 5, 9].map((used) => ({ granted: true, shard: 0, used })));
      expect(updates).toHaveLength(2);
    } finally {
      observeAwsCalls(undefined);
    }
    expect(await readShards(target)).toEqual([9]);
  });

  test.each([1, 3, 8])(
    'takes exactly its limit of single units under concurrency, over %i shard(s)',
    async (shards) => {
      const target = budget(shards, 120);
      const results = await Promise.all(Array.from({ length: 170 }, () => chargeBudget(target, 1)));
      expect(results.filter((result) => result.granted)).toHaveLength(120);
      expect(sum(await readShards(target))).toBe(120);
    },
  );

  test('never passes the limit with larger amounts, and leaves less than shards × amount unused', async () => {
    const target = budget(4, 100);
    const results = await Promise.all(Array.from({ length: 30 }, () => chargeBudget(target, 7)));
    const taken = results.filter((result) => result.granted).length * 7;
    expect(taken).toBeLessThanOrEqual(100);
    expect(taken).toBeGreaterThan(100 - 4 * 7);
    expect(sum(await readShards(target))).toBe(taken);
  });

  test('a full budget with refuseWhenFull refuses even a charge of 0; fractional slices add up to the limit', async () => {
    const round = (value: number) => Math.round(value * 1e12) / 1e12;
    const target = budget(3, 1, { refuseWhenFull: true, round });
    expect(round(sum([0, 1, 2].map((index) => sliceOf(1, 3, index, true))))).toBe(1);
    const results = await Promise.all(Array.from({ length: 40 }, () => chargeBudget(target, 0.05)));
    expect(results.filter((result) => result.granted).length).toBeLessThanOrEqual(20);
    expect(round(sum(await readShards(target)))).toBeLessThanOrEqual(1);
    // Fill every shard to the brim, then a free charge is refused.
    for (;;) {
      const rooms = (await readShards(target)).map((count, index) => round(sliceOf(1, 3, index, true) - count));
      const room = Math.max(...rooms);
      if (room <= 0) break;
      // The shard with most room is tried when the random one cannot take it: one shard fills per round.
      await chargeBudget(target, room);
    }
    expect(await chargeBudget(target, 0)).toMatchObject({ granted: false });
  });

  test('once a sharded budget is found full, charges for the next second are refused without a store call', async () => {
    const target = budget(4, 8);
    await Promise.all(Array.from({ length: 8 }, () => chargeBudget(target, 1)));
    expect(await chargeBudget(target, 1)).toEqual({ granted: false, used: 8 });
    const recorder = recordWrites();
    try {
      expect(await chargeBudget(target, 1)).toEqual({ granted: false, used: 8 });
      expect(recorder.commands.size).toBe(0);
    } finally {
      recorder.stop();
    }
  });

  test('whole-unit slices add up to the limit exactly, fractional ones are even', () => {
    expect(Array.from({ length: 4 }, (_, index) => sliceOf(50, 4, index, true))).toEqual([12.5, 12.5, 12.5, 12.5]);
    for (const [limit, shards] of [
      [100, 7],
      [5, 8],
      [600_000, 100],
    ] as const) {
      expect(sum(Array.from({ length: shards }, (_, index) => sliceOf(limit, shards, index)))).toBe(limit);
    }
  });
});
