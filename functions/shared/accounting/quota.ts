import { getItem } from '../store/documents.js';
import { physicalTableName } from '../store/tables.js';
import { addToItem } from '../store/item-additions.js';
import { retryThrottledOrBusy } from '../store/throttle-retry.js';
import { roundUsd } from './pricing.js';
import { spendShards } from './shard-count.js';
import { chargeBudget, type SlicedBudget } from './sliced-budget.js';
import { spendKey } from './spend.js';

/**
 * An account's USD quota: the limit lives on the account item (`quota.limit`), the spending in the
 * spend table, split over shards so that a busy account's two writes per request (reserve, settle)
 * do not all land on one item. Each shard holds `committed` (spent plus reservations still open) and
 * `used` (settled spending).
 *
 * Why the invariant of DESIGN §5 (concurrent requests never overdraw by more than what was reserved)
 * survives the sharding: shard i may commit at most its slice of the limit, the slices add up to the
 * limit, and a reservation is one conditional update on one shard (`committed + estimate ≤ slice`).
 * So the sum of `committed` over all shards never passes the limit through reservations; only
 * settlement, which turns a reservation into the real cost, can add to it, and by no more than the
 * cost exceeded what was reserved. A reservation refused by its shard tries the shard with the most
 * room, so near the limit at most `shards × estimate` of the quota goes unused; an account up to
 * ~150 requests per second is one shard, exact as before.
 */

const accountsTable = () => physicalTableName('accounts');

export type QuotaReservation =
  | { readonly granted: true; readonly reserved: number; readonly shard: number }
  | { readonly granted: false; readonly limit: number; readonly committed: number };

const makeSpendBudget = (accountId: string, limit: number, shards: number): SlicedBudget => ({
  table: physicalTableName('spend'),
  key: (index) => spendKey(accountId, index),
  shards,
  limit,
  attribute: 'committed',
  // A spent quota (committed = slice) refuses even a free request.
  refuseWhenFull: true,
  round: roundUsd,
});

/**
 * Accounts whose spend budgets are kept, so that what a budget works out for its writes is worked out
 * once, and finding it builds no string; a budget is made again when the limit or shards change.
 */
const SPEND_BUDGETS_KEPT = 1000;
const spendBudgets = new Map<string, SlicedBudget>();

const spendBudget = (accountId: string, limit: number, shards: number): SlicedBudget => {
  const kept = spendBudgets.get(accountId);
  if (kept && kept.limit === limit && kept.shards === shards) return kept;
  if (spendBudgets.size >= SPEND_BUDGETS_KEPT) spendBudgets.clear();
  const budget = makeSpendBudget(accountId, limit, shards);
  spendBudgets.set(accountId, budget);
  return budget;
};

const storedLimit = async (accountId: string): Promise<number | null> => {
  const { Item } = await retryThrottledOrBusy(() =>
    getItem({
      TableName: accountsTable(),
      Key: { id: accountId },
      ConsistentRead: true,
      ProjectionExpression: 'quota',
    }),
  );
  const quota = (Item?.quota ?? {}) as { limit?: number | null };
  return quota.limit ?? null;
};

/**
 * Reserves `estimate` USD of the account's quota if what is spent and reserved, plus it, stays within
 * the limit. `cachedLimit` is the limit the caller knows (from the cached principal); on a refusal the
 * stored limit is read, and when it differs the decision is made again on it, so a raised or removed
 * limit takes effect at once (a lowered one within the principal cache's lifetime).
 * `accountRpm` sizes the shards (see `spendShards`).
 */
export const reserveQuota = async (
  accountId: string,
  cachedLimit: number,
  estimate: number,
  accountRpm?: number,
): Promise<QuotaReservation> => {
  const shards = spendShards(accountRpm);
  const first = await chargeBudget(spendBudget(accountId, cachedLimit, shards), estimate);
  if (first.granted) return { granted: true, reserved: estimate, shard: first.shard };
  const limit = await storedLimit(accountId);
  if (limit === null) return { granted: true, reserved: 0, shard: 0 };
  if (limit !== cachedLimit) {
    const again = await chargeBudget(spendBudget(accountId, limit, shards), estimate);
    if (again.granted) return { granted: true, reserved: estimate, shard: again.shard };
    return { granted: false, limit, committed: again.used };
  }
  return { granted: false, limit, committed: first.used };
};

/**
 * Moves a request's real cost into `used` and closes its reservation (`committed` changes by
 * cost − reserved) on the shard it was reserved on. Unconditional: what was spent is spent, even past
 * the limit. Only a request admitted against a quota settles: an account without one keeps no
 * spending here (its usage records carry every cost), which spares its requests a write.
 */
export const settleQuota = (
  accountId: string,
  reservation: Extract<QuotaReservation, { granted: true }>,
  cost: number,
): Promise<void> => {
  const { reserved, shard } = reservation;
  if (reserved === 0 && cost === 0) return Promise.resolve();
  // The batched write's own promise: an invocation waiting on its record holds what it waits on.
  return addToItem({
    table: physicalTableName('spend'),
    key: spendKey(accountId, shard),
    add: { used: cost, committed: roundUsd(cost - reserved) },
    round: roundUsd,
  });
};
