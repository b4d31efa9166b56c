import { call, query } from './api.js';
import { actionButton, actionForm, dataTable, field, formatCost, formatTime, h, replaceChildren } from './dom.js';
import type { Me } from './main.js';
import { accountQuery, pageScope } from './scope.js';

/**
 * Budgets in the console (DESIGN §11): a banner over every page once a budget covering the signed-in
 * person has passed its first alert threshold, and the Budgets page: their budgets (spent, remaining,
 * reset), and for account admins and operators the account's key and member budgets, which they set
 * here (an operator also sets the account's own). The server checks every change
 * (`functions/console/budgets.ts`, the admin API for accounts).
 */

interface BudgetView {
  readonly limitUsd: number;
  readonly period: 'day' | 'week' | 'month' | 'total';
  readonly alertAt: readonly number[];
  readonly spentUsd: number;
  readonly remainingUsd: number;
  readonly resetsAt: string | null;
}

interface Budgeted {
  readonly level: 'account' | 'member' | 'key';
  readonly id: string;
  readonly label: string;
  readonly role?: string;
  readonly owner?: string | null;
  readonly budget: BudgetView | null;
}

interface Budgets {
  readonly accountId: string;
  readonly mine: readonly Budgeted[];
  readonly keys: readonly Budgeted[] | null;
  readonly members: readonly Budgeted[] | null;
}

const LEVEL_NAMES = { account: 'Account', member: 'You (member)', key: 'API key' } as const;
const ADJECTIVES = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' } as const;

/** The share of the limit spent, 0 for a zero limit. */
const spentShare = (budget: BudgetView) => (budget.limitUsd > 0 ? budget.spentUsd / budget.limitUsd : 0);

/** Whether the budget has passed its first alert threshold (the smallest fraction of `alertAt`). */
export const pastFirstAlert = (budget: BudgetView): boolean =>
  budget.alertAt.length > 0 && budget.spentUsd >= Math.min(...budget.alertAt) * budget.limitUsd;

const resets = (budget: BudgetView) => (budget.resetsAt ? formatTime(budget.resetsAt) : 'never (total)');

const budgetCells = (budget: BudgetView | null) =>
  budget
    ? [
        `${formatCost(budget.limitUsd)} ${ADJECTIVES[budget.period]}`,
        formatCost(budget.spentUsd),
        formatCost(budget.remainingUsd),
        resets(budget),
      ]
    : [h('span', { class: 'hint' }, 'none'), '', '', ''];

/**
 * The banner for the signed-in person's budgets past their first alert threshold, the fullest first;
 * nothing when none is. A failure to read the budgets shows no banner: the page itself still works.
 */
export const budgetBanner = async (): Promise<HTMLElement | null> => {
  const { mine } = await call<Budgets>('GET', '/console/api/budgets').catch(() => ({ mine: [] as Budgeted[] }));
  const alerting = mine
    .filter((entry) => entry.budget && pastFirstAlert(entry.budget))
    .sort((left, right) => spentShare(right.budget!) - spentShare(left.budget!));
  if (alerting.length === 0) return null;
  return h(
    'div',
    { id: 'budget-banner', class: 'budget-banner', role: 'status' },
    alerting.map((entry) => {
      const budget = entry.budget!;
      const percent = Math.floor(spentShare(budget) * 100);
      const whose =
        entry.level === 'member' ? 'Your' : `${entry.level === 'key' ? 'API key' : 'Account'} '${entry.label}': its`;
      return h(
        'p',
        { 'data-level': entry.level },
        `${whose} ${ADJECTIVES[budget.period]} budget is ${percent}% spent (${formatCost(budget.spentUsd)} of ${formatCost(budget.limitUsd)})`,
        budget.remainingUsd <= 0 ? ': requests it covers are refused' : '',
        budget.resetsAt ? `; it resets ${formatTime(budget.resetsAt)}.` : '.',
      );
    }),
  );
};

/** The fields of a budget: a limit in USD, a period and the alert fractions. */
const budgetForm = (
  id: string,
  title: string,
  subject: HTMLElement,
  save: (budget: unknown) => Promise<unknown>,
  done: () => void,
) => {
  const limit = h('input', { id: `${id}-limit`, type: 'number', min: 0, step: 'any', required: true });
  const period = h(
    'select',
    { id: `${id}-period` },
    (['month', 'week', 'day', 'total'] as const).map((value) => h('option', { value }, value)),
  );
  const alertAt = h('input', { id: `${id}-alert-at`, value: '0.8, 1', autocomplete: 'off' });
  return actionForm(
    id,
    title,
    [
      subject,
      field('Limit (USD)', limit),
      field('Period', period, 'Calendar periods in UTC; a week starts on Monday.'),
      field('Alert at', alertAt, 'Fractions of the limit, e.g. 0.5, 0.8, 1.'),
    ],
    'Set budget',
    () =>
      save({
        limitUsd: Number(limit.value),
        period: period.value,
        alertAt: alertAt.value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
          .map(Number),
      }),
    done,
  );
};

const selectOf = (id: string, entries: readonly Budgeted[]) =>
  h(
    'select',
    { id },
    entries.map((entry) => h('option', { value: entry.id }, entry.label)),
  );

/** The Budgets page. */
export const budgetsPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const scope = await pageScope(me.user, me.account.name, false, redraw);
  const budgets = await call<Budgets>('GET', `/console/api/budgets${query(accountQuery(scope))}`);
  const setBudget = (level: 'key' | 'member', id: string, budget: unknown) =>
    call('PUT', `/console/api/budgets/${level}/${encodeURIComponent(id)}`, { budget });
  const removable = (level: 'key' | 'member', entry: Budgeted) =>
    entry.budget
      ? actionButton('Remove', () => setBudget(level, entry.id, null), {
          question: `Remove the budget of ${entry.label}?`,
          done: redraw,
        })
      : '';
  const headings = ['Limit', 'Spent', 'Remaining', 'Resets'];
  const sections: (HTMLElement | null)[] = [];
  if (budgets.keys && budgets.members) {
    const keyChoice = selectOf('budget-key', budgets.keys);
    const memberChoice = selectOf('budget-member', budgets.members);
    sections.push(
      h('h2', {}, 'API keys'),
      dataTable(
        'key-budgets',
        ['Key', 'Created by', ...headings, ''],
        budgets.keys.map((key) => [key.label, key.owner ?? '—', ...budgetCells(key.budget), removable('key', key)]),
        'No keys.',
        (index) => ({ 'data-key-id': budgets.keys![index]!.id }),
      ),
      budgets.keys.length > 0
        ? budgetForm(
            'set-key-budget',
            "Set a key's budget",
            field('Key', keyChoice),
            (budget) => setBudget('key', keyChoice.value, budget),
            redraw,
          )
        : null,
      h('h2', {}, 'Members'),
      h('p', { class: 'hint' }, "A member's budget covers every key they create."),
      dataTable(
        'member-budgets',
        ['Member', 'Role', ...headings, ''],
        budgets.members.map((member) => [
          member.label,
          member.role ?? '',
          ...budgetCells(member.budget),
          member.role === 'admin' && me.user.role !== 'admin' ? '' : removable('member', member),
        ]),
        'No members.',
        (index) => ({ 'data-member-id': budgets.members![index]!.id }),
      ),
      budgets.members.length > 0
        ? budgetForm(
            'set-member-budget',
            "Set a member's budget",
            field('Member', memberChoice),
            (budget) => setBudget('member', memberChoice.value, budget),
            redraw,
          )
        : null,
    );
  }
  if (me.user.role === 'admin') {
    // Operators set the account's own budget through the admin API, which only they may call.
    const account = `/admin/v1/accounts/${encodeURIComponent(budgets.accountId)}`;
    sections.push(
      h('h2', {}, 'Account'),
      budgetForm(
        'set-account-budget',
        `Set ${scope.accountName}'s budget`,
        h('span'),
        (budget) => call('PATCH', account, { budget }),
        redraw,
      ),
      actionButton('Remove the account budget', () => call('PATCH', account, { budget: null }), {
        question: `Remove ${scope.accountName}'s budget? Its older quota, if any, is removed with it.`,
        done: redraw,
      }),
    );
  }
  replaceChildren(
    root,
    h('h1', {}, 'Budgets'),
    h('div', { class: 'toolbar' }, scope.picker),
    h('h2', {}, 'Covering you'),
    dataTable(
      'my-budgets',
      ['Budget', 'Of', ...headings],
      budgets.mine.map((entry) => [LEVEL_NAMES[entry.level], entry.label, ...budgetCells(entry.budget)]),
      'No budget covers your requests.',
      (index) => ({
        'data-level': budgets.mine[index]!.level,
        class: pastFirstAlert(budgets.mine[index]!.budget!) ? 'alerting' : '',
      }),
    ),
    sections,
  );
};
