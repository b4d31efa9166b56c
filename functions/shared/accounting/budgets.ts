import { type BudgetPeriod, periodEnd, periodLabel, periodStart } from './budget-period.js';
import { roundUsd } from './pricing.js';
import type { AccountSpend } from './spend.js';

/** A budget as an account, key or member holds it (DESIGN §11). */
export interface BudgetSettings {
  readonly limitUsd: number;
  readonly period: BudgetPeriod;
  /** Fractions of the limit at which an alert is sent, once per period each. */
  readonly alertAt: readonly number[];
}

export const DEFAULT_ALERT_AT: readonly number[] = [0.8, 1];

export type BudgetLevel = 'key' | 'member' | 'account';

/** A budget that covers a request: whose it is, and its settings. */
export interface CoveringBudget extends BudgetSettings {
  readonly level: BudgetLevel;
  /** The key's id, the member's e-mail address, or the account's id. */
  readonly ownerId: string;
  /** The account the owner belongs to. */
  readonly accountId: string;
}

/** The settings as given (alertAt optional) → as kept (alertAt sorted, without repeats). */
export const budgetSettings = (input: {
  readonly limitUsd: number;
  readonly period: BudgetPeriod;
  readonly alertAt?: readonly number[] | null | undefined;
}): BudgetSettings => ({
  limitUsd: input.limitUsd,
  period: input.period,
  alertAt: [...new Set(input.alertAt ?? DEFAULT_ALERT_AT)].sort((a, b) => a - b),
});

/** The older spelling: `quota: {limit}` is a total budget on the account. */
export const quotaAsBudget = (limit: number): BudgetSettings => budgetSettings({ limitUsd: limit, period: 'total' });

/**
 * The id of the spend items that hold a budget's spending in the period holding `at` (shards add
 * `#n`). An account's total budget keeps the account id itself, where its quota has always kept its
 * spending; every other budget's items are named by level, owner, period and the period's start, so
 * a new period's items start from zero.
 */
export const budgetSpendId = (
  budget: Pick<CoveringBudget, 'level' | 'ownerId' | 'period' | 'accountId'>,
  at: number,
): string =>
  budget.level === 'account' && budget.period === 'total'
    ? budget.ownerId
    : `${budget.accountId}|${budget.level}|${budget.ownerId}|${budget.period}|${periodLabel(budget.period, at)}`;

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

/** A budget as the admin API and the console show it: its settings and where its period stands. */
export const budgetView = (settings: BudgetSettings, spend: AccountSpend, at: number) => ({
  limitUsd: settings.limitUsd,
  period: settings.period,
  alertAt: settings.alertAt,
  spentUsd: spend.used,
  remainingUsd: roundUsd(Math.max(0, settings.limitUsd - spend.used)),
  periodStart: iso(periodStart(settings.period, at)),
  resetsAt: iso(periodEnd(settings.period, at)),
});

export type BudgetView = ReturnType<typeof budgetView>;
