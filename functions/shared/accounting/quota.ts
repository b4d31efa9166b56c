import { getItem } from '../store/documents.js';
import { physicalTableName } from '../store/tables.js';
import { addToItem } from '../store/item-additions.js';
import { retryThrottledOrBusy } from '../store/throttle-retry.js';
import { periodLabel, spendExpiry } from './budget-period.js';
import { budgetSpendId, quotaAsBudget, type BudgetSettings, type CoveringBudget } from './budgets.js';
import { roundUsd } from './pricing.js';
import { spendShards } from './shard-count.js';
import { chargeBudget, type SlicedBudget } from './sliced-budget.js';
import { spendKey } from './spend.js';

/**
 * Budgets in USD (an account's, a key's, a member's; the account's older `quota`): the limit lives on
 * its owner's item, the spending in the spend table, under items named by the budget and its period
 * (`budgetSpendId`), split over shards so that a busy budget's two writes per request (reserve,
 * settle) do not all land on one item. Each shard holds `committed` (spent plus reservations still
 * open) and `used` (settled spending).
 *
 * Why the invariant of DESIGN §5 (concurrent requests never overdraw by more than what was reserved)
 * survives the sharding: shard i may commit at most its slice of the limit, the slices add up to the
 * limit, and a reservation is one conditional update on one shard (`committed + estimate ≤ slice`).
 * So the sum of `committed` over all shards never passes the limit through reservations; only
 * settlement, which turns a reservation into the real cost, can add to it, and by no more than the
 * cost exceeded what was reserved. A reservation refused by its shard tries the shard with the most
 * room, so near the limit at most `shards × estimate` of the budget goes unused; a budget up to
 * ~150 requests per second is one shard, exact. Every budget that covers a request holds the same
 * reservation, so the invariant holds for each of them.
 */

export type BudgetReservation =
  | {
      readonly granted: true;
      readonly budget: CoveringBudget;
      /** The spend items' id for the period the reservation was made in: settlement goes there. */
      readonly spendId: string;
      /** The period's start date (`2025-06-02`), or `total`. */
      readonly periodLabel: string;
      readonly reserved: number;
      readonly shard: number;
      /** How many shards the budget's spend is split over. */
      readonly shards: number;
      /** Spent plus open reservations after this one (exact on one shard, estimated on several). */
      readonly committed: number;
    }
  | { readonly granted: false; readonly budget: CoveringBudget; readonly limit: number; readonly committed: number };

/** The account quota's reservation: a total budget's. */
export type QuotaReservation = BudgetReservation;

const makeSpendBudget = (
  spendId: string,
  limit: number,
  shards: number,
  expiresAt: number | undefined,
): SlicedBudget => ({
  table: physicalTableName('spend'),
  key: (index) => spendKey(spendId, index),
  shards,
  limit,
  attribute: 'committed',
  // A period's items expire some weeks after it ends (budget-period.ts); a total budget's never do.
  ...(expiresAt === undefined ? {} : { setIfAbsent: { expiresAt } }),
  // A spent budget (committed = slice) refuses even a free request.
  refuseWhenFull: true,
  round: roundUsd,
});

/**
 * Budgets whose sliced form is kept, so that what a budget works out for its writes is worked out
 * once, and finding it builds no string; one is made again when the limit, shards or period change.
 */
const SPEND_BUDGETS_KEPT = 1000;
const spendBudgets = new Map<string, SlicedBudget>();

/** The id names the period, so its expiry is the same for every write of one kept budget. */
const spendBudget = (spendId: string, limit: number, shards: number, expiresAt: number | undefined): SlicedBudget => {
  const kept = spendBudgets.get(spendId);
  if (kept && kept.limit === limit && kept.shards === shards) return kept;
  if (spendBudgets.size >= SPEND_BUDGETS_KEPT) spendBudgets.clear();
  const budget = makeSpendBudget(spendId, limit, shards, expiresAt);
  spendBudgets.set(spendId, budget);
  return budget;
};

/** The account's budget as stored now: its `budget`, else its older `quota`. */
const storedAccountBudget = async (accountId: string): Promise<BudgetSettings | null> => {
  const { Item } = await retryThrottledOrBusy(() =>
    getItem({
      TableName: physicalTableName('accounts'),
      Key: { id: accountId },
      ConsistentRead: true,
      ProjectionExpression: 'quota, budget',
    }),
  );
  const budget = Item?.budget as BudgetSettings | null | undefined;
  if (budget !== undefined) return budget;
  const limit = (Item?.quota as { limit?: number | null } | undefined)?.limit ?? null;
  return limit === null ? null : quotaAsBudget(limit);
};

/**
 * Reserves `estimate` USD of a budget if what is spent and reserved in its current period, plus it,
 * stays within the limit. The budget is the one the caller knows (from the cached principal); when
 * an account's budget refuses, its stored budget is read, and when its limit differs the decision is
 * made again on it, so a raised or removed account limit takes effect at once (a lowered one, and a
 * key's or member's change, within the principal cache's lifetime). `rpm` sizes the shards.
 */
export const reserveBudget = async (
  budget: CoveringBudget,
  at: number,
  estimate: number,
  rpm?: number,
): Promise<BudgetReservation> => {
  const shards = spendShards(rpm);
  const spendId = budgetSpendId(budget, at);
  const expiresAt = spendExpiry(budget.period, at);
  const first = await chargeBudget(spendBudget(spendId, budget.limitUsd, shards, expiresAt), estimate);
  const granted = (shard: number, committed: number) =>
    ({
      granted: true,
      budget,
      spendId,
      periodLabel: periodLabel(budget.period, at),
      reserved: estimate,
      shard,
      shards,
      committed,
    }) as const;
  if (first.granted) return granted(first.shard, first.used);
  if (budget.level !== 'account') return { granted: false, budget, limit: budget.limitUsd, committed: first.used };
  const stored = await storedAccountBudget(budget.accountId);
  if (stored === null) return { ...granted(0, 0), reserved: 0 };
  if (stored.limitUsd !== budget.limitUsd && stored.period === budget.period) {
    const again = await chargeBudget(spendBudget(spendId, stored.limitUsd, shards, expiresAt), estimate);
    if (again.granted) return granted(again.shard, again.used);
    return { granted: false, budget, limit: stored.limitUsd, committed: again.used };
  }
  return { granted: false, budget, limit: budget.limitUsd, committed: first.used };
};

/**
 * Moves a request's real cost into `used` and closes its reservation (`committed` changes by
 * cost − reserved) on the shard and period it was reserved on. Unconditional: what was spent is
 * spent, even past the limit. Only a request a budget covers settles on it: spending is kept here
 * only while a budget exists (usage records carry every cost), which spares other requests a write.
 */
export const settleBudget = (
  reservation: Extract<BudgetReservation, { granted: true }>,
  cost: number,
): Promise<void> => {
  const { reserved, shard, spendId } = reservation;
  if (reserved === 0 && cost === 0) return Promise.resolve();
  // The batched write's own promise: an invocation waiting on its record holds what it waits on.
  return addToItem({
    table: physicalTableName('spend'),
    key: spendKey(spendId, shard),
    add: { used: cost, committed: roundUsd(cost - reserved) },
    round: roundUsd,
  });
};
