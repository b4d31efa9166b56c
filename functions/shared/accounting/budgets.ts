import type { BudgetSettings, CoveringBudget } from '../store/budget-settings.js';
import { periodEnd, periodLabel, periodStart } from './budget-period.js';

export {
  budgetSettings,
  DEFAULT_ALERT_AT,
  quotaAsBudget,
  type BudgetLevel,
  type BudgetSettings,
  type CoveringBudget,
} from '../store/budget-settings.js';

import { roundUsd } from './pricing.js';
import type { AccountSpend } from './spend.js';

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
