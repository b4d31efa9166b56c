import { call, query } from '../api.js';
import { barChart, type ChartPoint } from '../charts.js';
import { formatCost, formatNumber, formatTime, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import type { KeyView } from './keys.js';

interface Totals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

type Group = Totals & { day?: string; model?: string; keyId?: string };

interface UsageAnswer {
  readonly data: {
    requestId: string;
    time: string;
    keyId: string;
    model: string;
    endpoint: string;
    status: string;
    httpStatus: number;
    totalTokens: number;
    cost: number;
    latencyMs: number;
  }[];
  readonly totals: Totals;
  readonly groups?: Group[];
  readonly quota: { limit: number | null; used: number };
}

const DAY_MS = 86_400_000;

/** One point per day of the range, zero where nothing was used, so gaps show as gaps. */
const everyDay = (from: Date, days: number, groups: readonly Group[], pick: (group: Group) => number): ChartPoint[] => {
  const byDay = new Map(groups.map((group) => [group.day!, group]));
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(from.getTime() + (index + 1) * DAY_MS).toISOString().slice(0, 10);
    const group = byDay.get(day);
    return { label: day.slice(5), value: group ? pick(group) : 0 };
  });
};

const quotaView = (quota: UsageAnswer['quota']): HTMLElement => {
  if (quota.limit === null)
    return h('p', { id: 'quota' }, `Spent ${formatCost(quota.used)}; the account has no quota.`);
  const left = Math.max(0, quota.limit - quota.used);
  return h(
    'div',
    { id: 'quota' },
    h('p', {}, `Quota: ${formatCost(quota.used)} used of ${formatCost(quota.limit)}, ${formatCost(left)} left.`),
    h('progress', { max: quota.limit, value: Math.min(quota.used, quota.limit) }),
  );
};

const drawUsage = async (root: HTMLElement, me: Me, days: number): Promise<void> => {
  const from = new Date(Date.now() - days * DAY_MS);
  const range = { from: from.toISOString() };
  const wholeAccount = me.user.role !== 'member';
  const [byDay, byModel, byKey, keys] = await Promise.all([
    call<UsageAnswer>('GET', `/console/api/usage${query({ ...range, groupBy: 'day', limit: 20 })}`),
    call<UsageAnswer>('GET', `/console/api/usage${query({ ...range, groupBy: 'model', limit: 1 })}`),
    wholeAccount
      ? call<UsageAnswer>('GET', `/console/api/usage${query({ ...range, groupBy: 'key', limit: 1 })}`)
      : undefined,
    wholeAccount ? call<{ data: KeyView[] }>('GET', '/console/api/keys') : undefined,
  ]);
  // Account admins see whose key each is: the members' usage.
  const keysById = new Map((keys?.data ?? []).map((key) => [key.id, key]));
  const totals = byDay.totals;
  const rangePicker = h(
    'select',
    {
      id: 'usage-range',
      class: 'range',
      onchange: (event: Event) => void drawUsage(root, me, Number((event.target as HTMLSelectElement).value)),
    },
    [7, 30, 90].map((choice) => h('option', { value: choice, selected: choice === days }, `Last ${choice} days`)),
  );
  const modelPoints = (byModel.groups ?? []).map((group) => ({ label: group.model!, value: group.cost }));
  replaceChildren(
    root,
    h('h1', {}, 'Usage'),
    h('p', { class: 'hint' }, wholeAccount ? `Every key of ${me.account.name}.` : 'The keys you created.'),
    rangePicker,
    quotaView(byDay.quota),
    h(
      'dl',
      { class: 'totals', id: 'usage-totals' },
      h('dt', {}, 'Requests'),
      h('dd', { id: 'total-requests' }, formatNumber(totals.requests)),
      h('dt', {}, 'Tokens'),
      h('dd', {}, formatNumber(totals.totalTokens)),
      h('dt', {}, 'Cost'),
      h('dd', {}, formatCost(totals.cost)),
    ),
    h(
      'div',
      { class: 'charts' },
      barChart(
        'Requests per day',
        everyDay(from, days, byDay.groups ?? [], (group) => group.requests),
        formatNumber,
      ),
      barChart(
        'Tokens per day',
        everyDay(from, days, byDay.groups ?? [], (group) => group.totalTokens),
        formatNumber,
      ),
      barChart(
        'Cost per day (USD)',
        everyDay(from, days, byDay.groups ?? [], (group) => group.cost),
        formatCost,
      ),
      barChart('Cost by model (USD)', modelPoints, formatCost),
    ),
    h(
      'table',
      { id: 'usage-by-model' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'Model'), h('th', {}, 'Requests'), h('th', {}, 'Tokens'), h('th', {}, 'Cost')),
      ),
      h(
        'tbody',
        {},
        (byModel.groups ?? []).map((group) =>
          h(
            'tr',
            {},
            h('td', {}, group.model!),
            h('td', {}, formatNumber(group.requests)),
            h('td', {}, formatNumber(group.totalTokens)),
            h('td', {}, formatCost(group.cost)),
          ),
        ),
      ),
    ),
    byKey
      ? [
          h('h2', {}, 'By key and member'),
          h(
            'table',
            { id: 'usage-by-key' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'Key'),
                h('th', {}, 'Name'),
                h('th', {}, 'Member'),
                h('th', {}, 'Requests'),
                h('th', {}, 'Tokens'),
                h('th', {}, 'Cost'),
              ),
            ),
            h(
              'tbody',
              {},
              (byKey.groups ?? []).map((group) => {
                const key = keysById.get(group.keyId!);
                return h(
                  'tr',
                  {},
                  h('td', {}, h('code', {}, group.keyId!)),
                  h('td', {}, key?.name ?? '—'),
                  h('td', {}, key?.owner ?? '—'),
                  h('td', {}, formatNumber(group.requests)),
                  h('td', {}, formatNumber(group.totalTokens)),
                  h('td', {}, formatCost(group.cost)),
                );
              }),
            ),
          ),
        ]
      : null,
    h('h2', {}, 'Latest requests'),
    h(
      'table',
      { id: 'latest-requests' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Time'),
          h('th', {}, 'Model'),
          h('th', {}, 'Endpoint'),
          h('th', {}, 'Key'),
          h('th', {}, 'Status'),
          h('th', {}, 'Tokens'),
          h('th', {}, 'Cost'),
          h('th', {}, 'Latency'),
        ),
      ),
      h(
        'tbody',
        {},
        byDay.data.length === 0
          ? h('tr', {}, h('td', { colspan: 8, class: 'hint' }, 'No requests in this range.'))
          : null,
        byDay.data.map((record) =>
          h(
            'tr',
            { 'data-request-id': record.requestId },
            h('td', {}, formatTime(record.time)),
            h('td', {}, record.model),
            h('td', {}, record.endpoint),
            h('td', {}, h('code', {}, record.keyId)),
            h('td', {}, `${record.status} (${record.httpStatus})`),
            h('td', {}, formatNumber(record.totalTokens)),
            h('td', {}, formatCost(record.cost)),
            h('td', {}, `${record.latencyMs} ms`),
          ),
        ),
      ),
    ),
  );
};

export const usagePage = (root: HTMLElement, me: Me): Promise<void> => drawUsage(root, me, 30);
