import { CliError } from './admin-client.js';
import type { Column } from './table.js';

/**
 * The budget options that accounts, keys and members share: `--budget <usd> --period
 * day|week|month|total [--alert-at 0.5,0.8,1]` sets a budget (the whole of it: what is left out takes
 * its default), `--no-budget` removes it. The admin API checks the values; these only shape them.
 */

type Options = Record<string, string | boolean | undefined>;

const PERIODS = ['day', 'week', 'month', 'total'];

export interface BudgetBody {
  readonly limitUsd: number;
  readonly period: string;
  readonly alertAt?: number[];
}

const usage = (message: string) => new CliError(message, 2);

const alertAtFrom = (value: string): number[] => {
  if (value === '' || value === 'none') return [];
  return value.split(',').map((item) => {
    const fraction = Number(item.trim());
    if (item.trim() === '' || !Number.isFinite(fraction))
      throw usage(`--alert-at expects fractions of the budget such as 0.5,0.8,1, got '${value}'.`);
    return fraction;
  });
};

/** The `budget` field of a request body: a budget, `null` to remove it, or undefined to leave it. */
export const budgetOption = (options: Options): BudgetBody | null | undefined => {
  const limit = typeof options.budget === 'string' ? options.budget : undefined;
  const period = typeof options.period === 'string' ? options.period : undefined;
  const alertAt = typeof options['alert-at'] === 'string' ? options['alert-at'] : undefined;
  if (options['no-budget'] === true) {
    if (limit !== undefined || period !== undefined || alertAt !== undefined)
      throw usage('--no-budget removes the budget: give it without --budget, --period or --alert-at.');
    return null;
  }
  if (limit === undefined) {
    if (period !== undefined || alertAt !== undefined)
      throw usage('--period and --alert-at go with --budget <usd>, which sets the whole budget.');
    return undefined;
  }
  const limitUsd = Number(limit);
  if (limit.trim() === '' || !Number.isFinite(limitUsd))
    throw usage(`--budget expects an amount of USD, got '${limit}'.`);
  if (period === undefined || !PERIODS.includes(period))
    throw usage(`--budget needs --period ${PERIODS.join('|')}${period === undefined ? '' : `, got '${period}'`}.`);
  return { limitUsd, period, ...(alertAt === undefined ? {} : { alertAt: alertAtFrom(alertAt) }) };
};

interface BudgetView {
  readonly limitUsd: number;
  readonly period: string;
  readonly spentUsd: number;
  readonly resetsAt: string | null;
}

/** `7.5/10 month` for a table's cell; `-` without a budget. */
export const budgetCell = (budget: BudgetView | null | undefined): string | undefined =>
  budget ? `${budget.spentUsd}/${budget.limitUsd} ${budget.period}` : undefined;

/** The BUDGET column of accounts, keys and members. */
export const budgetColumn: Column<any> = {
  header: 'BUDGET SPENT/LIMIT',
  value: (row: { budget?: BudgetView | null }) => budgetCell(row.budget),
};

/** The options `gatewayctl` takes for budgets (`no-budget` is a flag; the others take a value). */
export const budgetValueOptions = ['budget', 'period', 'alert-at'] as const;
