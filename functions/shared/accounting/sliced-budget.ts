import { toAttributeMap } from '../store/attribute-values.js';
import { getItem } from '../store/documents.js';
import { getAllByKeys } from '../store/get-all-by-keys.js';
import { sendOperation, THROTTLING_RETRIED_HERE } from '../store/operations.js';
import { addToItem } from '../store/item-additions.js';
import { turnBatch, type Settled } from '../store/turn-batch.js';
import { busyIfThrottled, retryThrottledOrBusy } from '../store/throttle-retry.js';

/**
 * A budget (a rate-limit window, an account's spend) held as `shards` items, each owning a slice of
 * the limit. The slices add up to the limit, and every charge is a conditional update that keeps its
 * own item within its own slice; so the sum of all items can never pass the limit, whatever the
 * number of concurrent callers, and no single item takes more than 1/shards of the writes.
 *
 * The cost of slicing is at the edge only: a charge refused by its (random) item looks at all items
 * and tries the one with most room, so it is refused only when no single item has `amount` left. The
 * unused remainder is then below `shards × amount`; with one shard (every small budget) it is zero.
 */
export interface SlicedBudget {
  readonly table: string;
  /** The key of shard `index`. */
  key(index: number): Record<string, string>;
  readonly shards: number;
  readonly limit: number;
  /** The numeric attribute that counts what was taken. */
  readonly attribute: string;
  /** Attributes every write sets where the item has none yet (an expiry). */
  readonly setIfAbsent?: Readonly<Record<string, number>>;
  /** A full slice refuses even a charge of 0 (a spent quota refuses a free request). */
  readonly refuseWhenFull?: boolean;
  /**
   * Set for amounts that are not whole units (USD): slices are even fractions of the limit, and sums
   * are rounded so that float noise never refuses an exact fit. Without it, slices are whole numbers.
   */
  readonly round?: (value: number) => number;
}

export type SliceCharge =
  | { readonly granted: true; readonly shard: number; readonly used: number }
  | { readonly granted: false; readonly used: number };

const identity = (value: number) => value;

/**
 * The slice of shard `index`. Whole units split into whole numbers that add up to the limit exactly;
 * fractional amounts into even shares (to 1e-12), the last shard taking the rounding remainder.
 */
export const sliceOf = (limit: number, shards: number, index: number, fractional = false): number => {
  if (shards === 1) return limit;
  if (!fractional) return Math.floor(limit / shards) + (index < limit % shards ? 1 : 0);
  const even = Math.floor((limit / shards) * 1e12) / 1e12;
  return index === shards - 1 ? Math.round((limit - even * (shards - 1)) * 1e12) / 1e12 : even;
};

/** A budget's slice for one shard: fractional when the budget rounds (USD), whole units otherwise. */
const sliceAt = (budget: SlicedBudget, index: number): number =>
  sliceOf(budget.limit, budget.shards, index, budget.round !== undefined);

const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

/**
 * What every charge of one budget writes the same way, worked out once per budget object (budgets of
 * a window or an account are kept while they are charged): the id that groups its charges, each
 * shard's marshalled key, and the update's expressions and names. Only the amounts vary per charge.
 */
interface BudgetPlan {
  readonly id: string;
  readonly keys: ReturnType<typeof toAttributeMap>[];
  /** Each shard's name for its corrections (`addToItem`'s id), made once. */
  readonly additionIds: string[];
  readonly condition: string;
  readonly update: string;
  readonly names: Readonly<Record<string, string>>;
  readonly fixedValues: Readonly<Record<string, number>>;
}

const plans = new WeakMap<SlicedBudget, BudgetPlan>();

const planOf = (budget: SlicedBudget): BudgetPlan => {
  let plan = plans.get(budget);
  if (plan) return plan;
  const sets = Object.entries(budget.setIfAbsent ?? {});
  // count + amount ≤ slice after the update (a missing item counts 0, and amount ≤ slice); with
  // refuseWhenFull also count < slice before it, so a full slice takes nothing, not even 0.
  const notFull = budget.refuseWhenFull ? ' AND #count < :slice' : '';
  plan = {
    // Charges whose sum one conditional update can take: same items, limit, slices and expressions.
    id: JSON.stringify([
      budget.table,
      budget.key(0),
      budget.limit,
      budget.shards,
      budget.attribute,
      budget.refuseWhenFull ?? false,
      budget.setIfAbsent ?? null,
    ]),
    keys: [],
    additionIds: [],
    condition: `attribute_not_exists(#count) OR (#count <= :ceiling${notFull})`,
    update:
      'ADD #count :amount' +
      (sets.length > 0 ? ` SET ${sets.map((_, n) => `#s${n} = if_not_exists(#s${n}, :s${n})`).join(', ')}` : ''),
    names: { '#count': budget.attribute, ...Object.fromEntries(sets.map(([name], n) => [`#s${n}`, name])) },
    fixedValues: Object.fromEntries(sets.map(([, value], n) => [`:s${n}`, value])),
  };
  plans.set(budget, plan);
  return plan;
};

/** Shard `index`'s key in attribute-value form, marshalled once per budget. */
const shardKey = (budget: SlicedBudget, plan: BudgetPlan, index: number) =>
  (plan.keys[index] ??= toAttributeMap(budget.key(index)));

/** Charges `amount` to one shard if it stays within its slice: the count after, or undefined when refused. */
const chargeShard = async (budget: SlicedBudget, index: number, amount: number): Promise<number | undefined> => {
  const round = budget.round ?? identity;
  const slice = sliceAt(budget, index);
  if (amount > slice) return undefined;
  const plan = planOf(budget);
  try {
    // Its input marshalled here: this is the one write before every limited request.
    const { Attributes } = await retryThrottledOrBusy(() =>
      sendOperation(
        'UpdateItem',
        {
          TableName: budget.table,
          Key: shardKey(budget, plan, index),
          ConditionExpression: plan.condition,
          UpdateExpression: plan.update,
          ExpressionAttributeNames: plan.names,
          ExpressionAttributeValues: toAttributeMap({
            ':amount': amount,
            ':ceiling': round(slice - amount),
            ...(budget.refuseWhenFull ? { ':slice': slice } : {}),
            ...plan.fixedValues,
          }),
          ReturnValues: 'UPDATED_NEW',
        },
        THROTTLING_RETRIED_HERE,
      ),
    );
    return Number(Attributes?.[budget.attribute]?.N ?? amount);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** What each shard holds now (strongly consistent), in shard order. */
export const readShards = async (
  budget: Pick<SlicedBudget, 'table' | 'key' | 'shards' | 'attribute'>,
): Promise<number[]> => {
  const countOf = (item: Record<string, unknown> | undefined) => {
    const value = item?.[budget.attribute];
    return typeof value === 'number' ? value : 0;
  };
  if (budget.shards === 1) {
    const { Item } = await retryThrottledOrBusy(() =>
      getItem({ TableName: budget.table, Key: budget.key(0), ConsistentRead: true }),
    );
    return [countOf(Item)];
  }
  const keys = Array.from({ length: budget.shards }, (_, index) => budget.key(index));
  const byKey = new Map<string, number>();
  const items = await getAllByKeys(budget.table, keys).catch((error: unknown) => {
    throw busyIfThrottled(error);
  });
  for (const item of items) byKey.set(JSON.stringify(keyFields(item, keys[0]!)), countOf(item));
  return keys.map((key) => byKey.get(JSON.stringify(key)) ?? 0);
};

/** The key attributes of an item, in the order of a sample key, to match answers to requests. */
const keyFields = (item: Record<string, unknown>, sample: Record<string, string>) =>
  Object.fromEntries(Object.keys(sample).map((name) => [name, item[name]]));

/**
 * Sharded budgets this instance found full: `room` was the most any shard had left. Once a busy
 * window fills, every further request in it would otherwise read all its shards to be refused; for a
 * second, a charge larger than `room` is refused from memory instead. That bounds the reads of a full
 * budget to one read of its shards per instance per second, at the price of refusing, for at most
 * that second, a charge that room given back by a correction could have taken.
 */
const FULL_MEMORY_MS = 1000;
const knownFull = new Map<string, { readonly until: number; readonly room: number; readonly used: number }>();

const rememberFull = (budget: SlicedBudget, room: number, used: number) => {
  const now = Date.now();
  // Forget what has expired, so the map holds only budgets refused in the last second.
  for (const [id, entry] of knownFull) if (entry.until <= now) knownFull.delete(id);
  knownFull.set(planOf(budget).id, { until: now + FULL_MEMORY_MS, room, used });
};

type GroupCharge =
  | { readonly granted: true; readonly shard: number; readonly count: number }
  | { readonly granted: false; readonly withOthers: boolean };

/**
 * The charges to one budget asked for in one loop turn, taken together: one conditional update of
 * their sum on a random shard. Within the slice, each is granted with the count as if they had been
 * applied one after another; over it, none is taken, and each is tried alone (`withOthers`), so near
 * the limit admission is exactly what separate charges would give. While a budget's update is in
 * flight, the charges asked for meanwhile wait for it and go out together (group commit): under load
 * a few updates a round trip instead of one a turn, the store's work and its write units with them,
 * for at most one more round trip of waiting; a lone request finds nothing in flight and waits none.
 */
const chargeTurn = turnBatch<{ readonly budget: SlicedBudget; readonly amount: number }, GroupCharge>(
  async (charges) => {
    const { budget } = charges[0]!;
    const round = budget.round ?? identity;
    const shard = Math.floor(Math.random() * budget.shards);
    const total = round(charges.reduce((sum, charge) => sum + charge.amount, 0));
    const count = await chargeShard(budget, shard, total);
    if (count === undefined) {
      return charges.map(() => ({ ok: true, value: { granted: false, withOthers: charges.length > 1 } }) as const);
    }
    const outcomes: Settled<GroupCharge>[] = [];
    let after = count;
    for (let index = charges.length - 1; index >= 0; index -= 1) {
      outcomes[index] = { ok: true, value: { granted: true, shard, count: after } };
      after = round(after - charges[index]!.amount);
    }
    return outcomes;
  },
  { followInFlight: true },
);

/** A charge larger than the smallest slice could never share one: it goes alone. */
const chargeWithOthers = (budget: SlicedBudget, amount: number): Promise<GroupCharge> =>
  amount > sliceAt(budget, budget.shards - 1)
    ? Promise.resolve({ granted: false, withOthers: false })
    : chargeTurn(planOf(budget).id, { budget, amount });

/** Tries a shard at random, then, if it is full, the shard with the most room (a few times under contention). */
export const chargeBudget = async (budget: SlicedBudget, amount: number): Promise<SliceCharge> => {
  const round = budget.round ?? identity;
  if (budget.shards > 1) {
    const full = knownFull.get(planOf(budget).id);
    if (full && full.until > Date.now() && (amount > full.room || (budget.refuseWhenFull && full.room <= 0))) {
      return { granted: false, used: full.used };
    }
  }
  const grouped = await chargeWithOthers(budget, amount);
  const taken = grouped.granted
    ? grouped
    : await (async () => {
        if (!grouped.withOthers) return undefined;
        const alone = Math.floor(Math.random() * budget.shards);
        const count = await chargeShard(budget, alone, amount);
        return count === undefined ? undefined : { shard: alone, count };
      })();
  if (taken) {
    // With one shard the count is exact; with several, this shard's room scaled up is the best guess
    // of what is left without reading the others.
    const room = (sliceAt(budget, taken.shard) - taken.count) * budget.shards;
    return {
      granted: true,
      shard: taken.shard,
      used: round(Math.min(budget.limit, Math.max(0, budget.limit - room))),
    };
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const counts = await readShards(budget);
    const used = round(counts.reduce((sum, value) => sum + value, 0));
    if (budget.shards === 1) return { granted: false, used };
    const rooms = counts.map((value, index) => round(sliceAt(budget, index) - value));
    const best = rooms.reduce((top, room, index) => (room > rooms[top]! ? index : top), 0);
    const room = rooms[best]!;
    if (room < amount || (budget.refuseWhenFull && room <= 0)) {
      rememberFull(budget, room, used);
      return { granted: false, used };
    }
    const after = await chargeShard(budget, best, amount);
    if (after !== undefined) return { granted: true, shard: best, used: round(used + amount) };
  }
  return { granted: false, used: round((await readShards(budget)).reduce((sum, value) => sum + value, 0)) };
};

/**
 * Adds `delta` (negative to give back) to one shard without a condition: what was taken is taken,
 * a correction never refuses. Moving amounts between shards never breaks the limit, because each
 * shard's own condition keeps it within its slice and the slices add up to the limit. Corrections of
 * one shard made in the same loop turn are summed into one write (`addToItem`).
 */
export const adjustBudget = (budget: SlicedBudget, shard: number, delta: number): Promise<void> => {
  const plan = planOf(budget);
  return addToItem({
    table: budget.table,
    key: budget.key(shard),
    add: { [budget.attribute]: delta },
    ...(budget.setIfAbsent ? { setIfAbsent: budget.setIfAbsent } : {}),
    ...(budget.round ? { round: budget.round } : {}),
    // The budget's id names its items and attributes; the rounding goes with them.
    id: (plan.additionIds[shard] ??= `${plan.id}#${shard}#${budget.round?.name ?? ''}`),
  });
};
