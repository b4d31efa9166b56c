import {
  adjustWindow,
  chargeWindow,
  WINDOW_MS,
  windowStartOf,
  type WindowCharge,
} from '../../functions/shared/accounting/rate-limit-window.js';
import { readShards } from '../../functions/shared/accounting/sliced-budget.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { useInMemoryStore } from '../support/in-memory-store.js';

// The windows below are charged and corrected in an in-memory store's counters table.
useInMemoryStore();

let owners = 0;
const tokensCharge = (ownerId: string, windowStart: number, amount: number, limit = 1_000): WindowCharge => ({
  dimension: 'tokens',
  scope: 'account',
  ownerId,
  limit,
  amount,
  windowStart,
});

/** What the window's one item holds. */
const countOf = async (charge: WindowCharge) => {
  const base = `tpm#${charge.scope}#${charge.ownerId}#${charge.windowStart}`;
  const [count] = await readShards({
    table: physicalTableName('counters'),
    key: () => ({ id: base }),
    shards: 1,
    attribute: 'count',
  });
  return count;
};

describe('rate-limit windows over minutes', () => {
  test('a correction made after the next minute began goes to the minute it corrects', async () => {
    const owner = `minutes-${(owners += 1)}`;
    const earlier = windowStartOf(Date.now()) - 2 * WINDOW_MS;
    const later = earlier + WINDOW_MS;
    const first = await chargeWindow(tokensCharge(owner, earlier, 100));
    const second = await chargeWindow(tokensCharge(owner, later, 40));
    expect(first.granted && second.granted).toBe(true);
    // The earlier minute's correction, asked for once the later minute is being charged.
    await adjustWindow(first.charge, -30);
    await adjustWindow(second.charge, 5);
    expect(await countOf(first.charge)).toBe(70);
    expect(await countOf(second.charge)).toBe(45);
    // And the earlier minute still takes charges of its own, within its own limit.
    const third = await chargeWindow(tokensCharge(owner, earlier, 930));
    expect(third.granted).toBe(true);
    expect(await countOf(first.charge)).toBe(1_000);
    expect((await chargeWindow(tokensCharge(owner, earlier, 1))).granted).toBe(false);
  });

  test('a limit changed within a minute is charged against the new limit', async () => {
    const owner = `minutes-${(owners += 1)}`;
    const start = windowStartOf(Date.now());
    expect((await chargeWindow(tokensCharge(owner, start, 80, 100))).granted).toBe(true);
    expect((await chargeWindow(tokensCharge(owner, start, 30, 100))).granted).toBe(false);
    // Raised by an administrator: the same window's item, judged on the new limit.
    expect((await chargeWindow(tokensCharge(owner, start, 30, 200))).granted).toBe(true);
    expect(await countOf(tokensCharge(owner, start, 0))).toBe(110);
    // Lowered again: nothing more fits.
    expect((await chargeWindow(tokensCharge(owner, start, 1, 100))).granted).toBe(false);
  });
});
