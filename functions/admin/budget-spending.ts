import { budgetNow } from '../shared/accounting/budget-period.js';
import {
  budgetSpendId,
  budgetView,
  type BudgetLevel,
  type BudgetSettings,
  type BudgetView,
} from '../shared/accounting/budgets.js';
import { readSpend, type AccountSpend } from '../shared/accounting/spend.js';

/** Whose budget: enough to find its spending. */
export interface BudgetOwner {
  readonly level: BudgetLevel;
  readonly ownerId: string;
  readonly accountId: string;
}

const NOTHING_SPENT: AccountSpend = { used: 0, committed: 0 };

/** A budget as shown, with its current period's spending read from the store (one BatchGetItem). */
export const readBudgetView = async (
  settings: BudgetSettings | null | undefined,
  owner: BudgetOwner,
): Promise<BudgetView | null> => {
  if (!settings) return null;
  const at = budgetNow();
  return budgetView(settings, await readSpend(budgetSpendId({ ...owner, period: settings.period }, at)), at);
};

/** A budget as shown, its spending taken from every spend item read at once (`readEverySpend`), for lists. */
export const budgetViewFrom = (
  spending: ReadonlyMap<string, AccountSpend>,
  settings: BudgetSettings | null | undefined,
  owner: BudgetOwner,
): BudgetView | null => {
  if (!settings) return null;
  const at = budgetNow();
  return budgetView(
    settings,
    spending.get(budgetSpendId({ ...owner, period: settings.period }, at)) ?? NOTHING_SPENT,
    at,
  );
};
