import { physicalTableName } from '../store/tables.js';
import { requestWindowShards, tokenWindowShards } from './shard-count.js';
import { adjustBudget, chargeBudget, type SlicedBudget } from './sliced-budget.js';

/** What a fixed one-minute window counts: requests or tokens. */
export type LimitDimension = 'requests' | 'tokens';

/** Whose window it is. */
export type LimitScope = 'key' | 'account';

export const WINDOW_MS = 60_000;
/** Counters outlive their window by a few minutes, so a late settlement still finds its item. */
const COUNTER_TTL_SECONDS = 5 * 60;

/** One counter to charge: `amount` units against `limit` in the window starting at `windowStart`. */
export interface WindowCharge {
  readonly dimension: LimitDimension;
  readonly scope: LimitScope;
  readonly ownerId: string;
  readonly limit: number;
  readonly amount: number;
  readonly windowStart: number;
  /** The owner's RPM limit beside a token window: its request rate sizes the token window's shards. */
  readonly requestLimit?: number;
  /** Set on a granted charge: the shard it was taken from, where corrections go. */
  readonly shard?: number;
}

/** A charge that went through: the count after it (exact on one shard, estimated on several). */
export interface WindowGranted {
  readonly charge: WindowCharge;
  readonly granted: true;
  readonly count: number;
}

/** A charge the window could not take: the count as it stood. */
export interface WindowRefused {
  readonly charge: WindowCharge;
  readonly granted: false;
  readonly count: number;
}

export type WindowResult = WindowGranted | WindowRefused;

export const windowStartOf = (now: number): number => now - (now % WINDOW_MS);

const table = () => physicalTableName('counters');

/** The number of shards follows from the limit alone, so every instance agrees on it without a read. */
const shardsOf = (charge: Pick<WindowCharge, 'dimension' | 'limit' | 'requestLimit'>): number =>
  charge.dimension === 'requests'
    ? requestWindowShards(charge.limit)
    : tokenWindowShards(charge.limit, charge.requestLimit);

/**
 * One window as a sliced budget. Shard 0 keeps the unsharded id, so a small (one-shard) window is
 * the single item it always was; shard n > 0 appends `#n`.
 */
const makeWindowBudget = (charge: WindowCharge): SlicedBudget => {
  const base = `${charge.dimension === 'requests' ? 'rpm' : 'tpm'}#${charge.scope}#${charge.ownerId}#${charge.windowStart}`;
  return {
    table: table(),
    key: (index) => ({ id: index === 0 ? base : `${base}#${index}` }),
    shards: shardsOf(charge),
    limit: charge.limit,
    attribute: 'count',
    setIfAbsent: { expiresAt: Math.floor((charge.windowStart + WINDOW_MS) / 1000) + COUNTER_TTL_SECONDS },
  };
};

/** A kept budget, and the limits it was made for. */
interface KeptBudget {
  readonly budget: SlicedBudget;
  readonly limit: number;
  readonly requestLimit: number | undefined;
}

/**
 * The budgets of the current minute's windows, by owner, then by dimension and scope: what a budget
 * works out for its writes (`sliced-budget.ts`) is then worked out once a minute, not once a request,
 * and finding it builds no string. A new minute starts an empty set; a late correction of an earlier
 * minute makes its budget afresh.
 */
let currentWindowStart = Number.NEGATIVE_INFINITY;
let currentBudgets = new Map<string, (KeptBudget | undefined)[]>();

const windowBudget = (charge: WindowCharge): SlicedBudget => {
  if (charge.windowStart < currentWindowStart) return makeWindowBudget(charge);
  if (charge.windowStart > currentWindowStart) {
    currentWindowStart = charge.windowStart;
    currentBudgets = new Map();
  }
  let owned = currentBudgets.get(charge.ownerId);
  if (!owned) currentBudgets.set(charge.ownerId, (owned = []));
  const slot = (charge.dimension === 'requests' ? 0 : 2) + (charge.scope === 'key' ? 0 : 1);
  const kept = owned[slot];
  if (kept && kept.limit === charge.limit && kept.requestLimit === charge.requestLimit) return kept.budget;
  const budget = makeWindowBudget(charge);
  owned[slot] = { budget, limit: charge.limit, requestLimit: charge.requestLimit };
  return budget;
};

/**
 * Adds `amount` to the window if, and only if, the window stays within its limit. Each shard is one
 * conditional UpdateItem on its own slice of the limit, which DynamoDB applies atomically, so any
 * number of concurrent callers (any number of Lambda instances) can never push a window past its
 * limit together. A window up to 300 requests/s is one shard and exact; a larger one refuses only
 * when no shard has `amount` left (for requests, amount 1: when the window is full).
 */
export const chargeWindow = async (charge: WindowCharge): Promise<WindowResult> => {
  const budget = windowBudget(charge);
  // A request larger than the whole window can never fit: refused without a write.
  const result = await chargeBudget(budget, charge.amount > charge.limit ? Number.POSITIVE_INFINITY : charge.amount);
  return result.granted
    ? { charge: { ...charge, shard: result.shard }, granted: true, count: result.used }
    : { charge, granted: false, count: result.used };
};

/**
 * Adds `delta` (which may be negative) to the shard a granted charge took from, without a condition:
 * gives back what a refused admission had taken elsewhere, or corrects a token estimate to the real
 * count. A window already over never refuses a correction; it only refuses new admissions.
 */
export const adjustWindow = (charge: WindowCharge, delta: number): Promise<void> =>
  delta === 0 ? Promise.resolve() : adjustBudget(windowBudget(charge), charge.shard ?? 0, delta);
