import { budgetPeriods, type BudgetPeriod } from '../store/budget-settings.js';

export { budgetPeriods, type BudgetPeriod };
/**
 * Budget periods: calendar periods in UTC (a day from 00:00Z, a week from Monday 00:00Z, a month from
 * the 1st 00:00Z) or `total`, which never resets. A period's spending is kept under its own items,
 * named by the period's start, so a new period starts from zero with no reset job.
 */

const DAY_MS = 86_400_000;

/** The budgets' clock: the system's, unless a test sets another (`useBudgetClock`). */
let clock: () => number = Date.now;

/** Epoch milliseconds now, as budgets see it. */
export const budgetNow = (): number => clock();

/** Sets the clock budgets read (a test crossing a period's boundary); without an argument, the system's. */
export const useBudgetClock = (now?: () => number): void => {
  clock = now ?? Date.now;
};

/** The start of the period holding `at` (epoch ms), or `null` for `total`. */
export const periodStart = (period: BudgetPeriod, at: number): number | null => {
  const date = new Date(at);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  switch (period) {
    case 'day':
      return day;
    case 'week':
      // getUTCDay: Sunday 0 … Saturday 6; a week starts on Monday.
      return day - ((date.getUTCDay() + 6) % 7) * DAY_MS;
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    case 'total':
      return null;
    default: {
      const unreachable: never = period;
      throw new Error(`unknown budget period ${String(unreachable)}`);
    }
  }
};

/** When the period holding `at` ends and the next starts from zero, or `null` for `total`. */
export const periodEnd = (period: BudgetPeriod, at: number): number | null => {
  const start = periodStart(period, at);
  if (start === null) return null;
  const date = new Date(start);
  switch (period) {
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + 7 * DAY_MS;
    default:
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
};

/** Days a period's spend items and alert markers are kept after the period ends (then DynamoDB's TTL removes them). */
export const SPEND_KEPT_AFTER_PERIOD_DAYS = 35;

/**
 * When the spend items of the period holding `at` may go (epoch seconds, the table's TTL attribute
 * `expiresAt`): some weeks after the period ends, so that a finished period's spending can still be
 * looked at, and the table does not grow with every period. `undefined` for `total`, whose items
 * hold the budget's whole spending.
 */
export const spendExpiry = (period: BudgetPeriod, at: number): number | undefined => {
  const end = periodEnd(period, at);
  return end === null ? undefined : Math.floor(end / 1000) + SPEND_KEPT_AFTER_PERIOD_DAYS * 86_400;
};

/** The period's name in item ids and alerts: its start's date (`2025-06-02`), or `total`. */
export const periodLabel = (period: BudgetPeriod, at: number): string => {
  const start = periodStart(period, at);
  return start === null ? 'total' : new Date(start).toISOString().slice(0, 10);
};

const adjectives: Record<BudgetPeriod, string> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };

/** `daily`, `weekly`, `monthly` or `total`, for messages. */
export const periodAdjective = (period: BudgetPeriod): string => adjectives[period];
