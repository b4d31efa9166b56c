/**
 * A budget as accounts, keys and members hold it (DESIGN §11): the record's own data, kept with the
 * store's records; what a budget's spending and periods mean is decided in accounting/.
 */
export const budgetPeriods = ['day', 'week', 'month', 'total'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

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
