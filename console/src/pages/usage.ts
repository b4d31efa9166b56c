import { call, query } from '../api.js';
import { barChart, type ChartPoint } from '../charts.js';
import { dataTable, formatCost, formatNumber, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import { accountQuery, EVERY_ACCOUNT, pageScope, type PageScope } from '../scope.js';

interface Totals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

interface Overview {
  readonly range: { from: string; to: string };
  readonly totals: Totals;
  readonly byDay: (Totals & { day: string })[];
  readonly byAccount: (Totals & { accountId: string; accountName: string | null })[];
  readonly byModel: (Totals & { model: string })[];
  readonly byKey: (Totals & {
    keyId: string;
    keyName: string | null;
    keyPrefix: string | null;
    owner: string | null;
    accountName: string | null;
  })[];
}

interface Quota {
  readonly quota: { limit: number | null; used: number };
}

const DAY_MS = 86_400_000;
const RANGE = 'model-gateway.range';

/** One point per UTC day of the range, zero where nothing was used, so that gaps show as gaps. */
const everyDay = (overview: Overview, days: number, pick: (totals: Totals) => number): ChartPoint[] => {
  const byDay = new Map(overview.byDay.map((group) => [group.day, group]));
  const last = Date.parse(`${overview.range.to.slice(0, 10)}T00:00:00.000Z`);
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(last - (days - 1 - index) * DAY_MS).toISOString().slice(0, 10);
    const group = byDay.get(day);
    return { label: day.slice(5), value: group ? pick(group) : 0 };
  });
};

const totalsCells = (totals: Totals) => [
  formatNumber(totals.requests),
  formatNumber(totals.totalTokens),
  formatCost(totals.cost),
];

const keyLabel = (group: Overview['byKey'][number]) =>
  h(
    'span',
    {},
    group.keyName ?? 'unnamed key',
    ' ',
    h('code', { class: 'hint' }, group.keyPrefix ? `${group.keyPrefix}…` : group.keyId),
  );

/** The quota line, only where the account has one: its counter and what is left. */
const quotaView = (quota: Quota['quota']): HTMLElement | null => {
  if (quota.limit === null) return null;
  const left = Math.max(0, quota.limit - quota.used);
  return h(
    'div',
    { id: 'quota', class: 'card' },
    h('p', {}, `Quota: ${formatCost(quota.used)} of ${formatCost(quota.limit)} counted, ${formatCost(left)} left.`),
    h('progress', { max: quota.limit, value: Math.min(quota.used, quota.limit) }),
  );
};

const drawUsage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const scope: PageScope = await pageScope(me.user, me.account.name, true, redraw);
  const every = scope.accountId === EVERY_ACCOUNT;
  // Every account is read from the day index: at most 31 days.
  const days = Math.min(Number(sessionStorage.getItem(RANGE) ?? 30), every ? 30 : 90);
  const from = new Date(Date.now() - (days - 1) * DAY_MS);
  from.setUTCHours(0, 0, 0, 0);
  const [overview, usage] = await Promise.all([
    call<Overview>('GET', `/console/api/overview${query({ ...accountQuery(scope), from: from.toISOString() })}`),
    every
      ? undefined
      : call<Quota>(
          'GET',
          `/console/api/usage${query({ ...accountQuery(scope), from: from.toISOString(), limit: 1 })}`,
        ),
  ]);
  const rangePicker = h(
    'label',
    { class: 'picker' },
    'Range ',
    h(
      'select',
      {
        id: 'usage-range',
        onchange: (event: Event) => {
          sessionStorage.setItem(RANGE, (event.target as HTMLSelectElement).value);
          redraw();
        },
      },
      (every ? [7, 30] : [7, 30, 90]).map((choice) =>
        h('option', { value: choice, selected: choice === days }, `Last ${choice} days`),
      ),
    ),
  );
  const seesKeys = me.user.role !== 'member';
  const { totals } = overview;
  replaceChildren(
    root,
    h('h1', {}, 'Usage'),
    h('div', { class: 'toolbar' }, scope.picker, rangePicker),
    h(
      'p',
      { class: 'hint' },
      me.user.role === 'member' ? 'The keys you created.' : `Every key of ${scope.accountName}.`,
      ' Money is summed from the request records.',
    ),
    usage ? quotaView(usage.quota) : null,
    h(
      'dl',
      { class: 'totals', id: 'usage-totals' },
      h('div', {}, h('dt', {}, 'Requests'), h('dd', { id: 'total-requests' }, formatNumber(totals.requests))),
      h('div', {}, h('dt', {}, 'Tokens'), h('dd', { id: 'total-tokens' }, formatNumber(totals.totalTokens))),
      h('div', {}, h('dt', {}, 'Spent'), h('dd', { id: 'total-cost' }, formatCost(totals.cost))),
    ),
    h(
      'div',
      { class: 'charts' },
      barChart(
        'Requests per day',
        everyDay(overview, days, (group) => group.requests),
        formatNumber,
        'No requests in this range.',
      ),
      barChart(
        'Tokens per day',
        everyDay(overview, days, (group) => group.totalTokens),
        formatNumber,
        'No tokens in this range.',
      ),
      barChart(
        'Spend per day (USD)',
        everyDay(overview, days, (group) => group.cost),
        formatCost,
        'Nothing spent in this range.',
      ),
      barChart(
        'Spend by model (USD)',
        overview.byModel.map((group) => ({ label: group.model, value: group.cost })),
        formatCost,
        'Nothing spent in this range.',
      ),
    ),
    every
      ? [
          h('h2', {}, 'By account'),
          dataTable(
            'usage-by-account',
            ['Account', 'Requests', 'Tokens', 'Spent'],
            overview.byAccount.map((group) => [group.accountName ?? group.accountId, ...totalsCells(group)]),
            'No requests in this range.',
          ),
        ]
      : null,
    h('h2', {}, 'By model'),
    dataTable(
      'usage-by-model',
      ['Model', 'Requests', 'Tokens', 'Spent'],
      overview.byModel.map((group) => [h('code', {}, group.model), ...totalsCells(group)]),
      'No requests in this range.',
    ),
    h('h2', {}, seesKeys ? 'By key and member' : 'By key'),
    dataTable(
      'usage-by-key',
      [...(every ? ['Account'] : []), 'Key', ...(seesKeys ? ['Member'] : []), 'Requests', 'Tokens', 'Spent'],
      overview.byKey.map((group) => [
        ...(every ? [group.accountName ?? '—'] : []),
        keyLabel(group),
        ...(seesKeys ? [group.owner ?? '—'] : []),
        ...totalsCells(group),
      ]),
      'No requests in this range.',
    ),
    h('p', {}, h('a', { href: '#/requests' }, 'Every request, with filters and CSV export →')),
  );
};

export const usagePage = (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => drawUsage(root, me, redraw);
