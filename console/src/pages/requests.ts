import { apiBase, call, query, session } from '../api.js';
import { dataTable, formatCost, formatNumber, formatTime, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import { accountQuery, EVERY_ACCOUNT, pageScope } from '../scope.js';

interface Row {
  time: string;
  requestId: string;
  accountId: string;
  keyId: string;
  model: string;
  endpoint: string;
  stream: boolean;
  status: string;
  httpStatus: number;
  totalTokens: number;
  cost: number;
  latencyMs: number;
}

interface Page {
  readonly data: Row[];
  readonly nextCursor?: string;
}

interface KeyItem {
  readonly id: string;
  readonly name: string | null;
  readonly prefix: string;
}

const PAGE_SIZE = 50;
const EXPORT_PAGE = 5000;
const statuses = ['success', 'upstream_error', 'client_aborted', 'timeout', 'error'] as const;
const DAY_MS = 86_400_000;

/** A `datetime-local` value (local time) as ISO-8601 UTC, or undefined when empty. */
const isoOf = (value: string): string | undefined => (value ? new Date(value).toISOString() : undefined);

/**
 * The request log: every request in scope, newest first, filtered by account (operators), key, model,
 * status and time, a page at a time (the server's cursor), and exported as CSV page by page.
 */
export const requestsPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const scope = await pageScope(me.user, me.account.name, true, redraw);
  const every = scope.accountId === EVERY_ACCOUNT;
  const [keys, models] = await Promise.all([
    every
      ? Promise.resolve({ data: [] as KeyItem[] })
      : call<{ data: KeyItem[] }>('GET', `/console/api/keys${query(accountQuery(scope))}`),
    call<{ data: { id: string }[] }>('GET', `/console/api/models${query(accountQuery(scope))}`),
  ]);
  const key = h(
    'select',
    { id: 'filter-key' },
    h('option', { value: '' }, every ? 'any (pick an account)' : 'any'),
    keys.data.map((item) => h('option', { value: item.id }, `${item.name ?? 'unnamed'} (${item.prefix}…)`)),
  );
  const model = h('input', { id: 'filter-model', list: 'served-models', placeholder: 'any' });
  const modelList = h(
    'datalist',
    { id: 'served-models' },
    models.data.map((item) => h('option', { value: item.id })),
  );
  const status = h(
    'select',
    { id: 'filter-status' },
    h('option', { value: '' }, 'any'),
    statuses.map((value) => h('option', { value }, value.replace('_', ' '))),
  );
  const from = h('input', { id: 'filter-from', type: 'datetime-local' });
  const to = h('input', { id: 'filter-to', type: 'datetime-local' });
  if (every)
    from.value = new Date(Date.now() - DAY_MS - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  const keyNames = new Map(keys.data.map((item) => [item.id, item.name ?? `${item.prefix}…`]));
  const accountNames = new Map(scope.accounts.map((account) => [account.id, account.name]));

  const results = h('div', { id: 'request-results' });
  const error = h('p', { class: 'error', role: 'alert' });
  /** Cursors of the pages before the one shown, for "Newer". */
  const earlier: (string | undefined)[] = [];
  let current: string | undefined;

  const filters = () => ({
    ...accountQuery(scope),
    keyId: key.value || undefined,
    model: model.value.trim() || undefined,
    status: status.value || undefined,
    from: isoOf(from.value),
    to: isoOf(to.value),
  });

  const show = async (cursor: string | undefined): Promise<void> => {
    error.textContent = '';
    let page: Page;
    try {
      page = await call<Page>('GET', `/console/api/requests${query({ ...filters(), limit: PAGE_SIZE, cursor })}`);
    } catch (failure) {
      error.textContent = (failure as Error).message;
      return;
    }
    current = cursor;
    const newer = h(
      'button',
      { type: 'button', id: 'page-newer', class: 'secondary', disabled: earlier.length === 0 },
      'Newer',
    );
    newer.addEventListener('click', () => void show(earlier.pop()));
    const older = h(
      'button',
      { type: 'button', id: 'page-older', class: 'secondary', disabled: !page.nextCursor },
      'Older',
    );
    older.addEventListener('click', () => {
      earlier.push(current);
      void show(page.nextCursor);
    });
    replaceChildren(
      results,
      dataTable(
        'request-log',
        ['Time', ...(every ? ['Account'] : []), 'Key', 'Model', 'Endpoint', 'Status', 'Tokens', 'Cost', 'Latency'],
        page.data.map((row) => [
          formatTime(row.time),
          ...(every ? [accountNames.get(row.accountId) ?? row.accountId] : []),
          keyNames.get(row.keyId) ?? h('code', {}, row.keyId),
          h('code', {}, row.model),
          `${row.endpoint}${row.stream ? ' (stream)' : ''}`,
          h('span', { class: `status ${row.status}` }, `${row.status.replace('_', ' ')} (${row.httpStatus})`),
          formatNumber(row.totalTokens),
          formatCost(row.cost),
          `${Math.round(row.latencyMs)} ms`,
        ]),
        'No request matches.',
        (index) => ({ 'data-request-id': page.data[index]!.requestId }),
      ),
      h('div', { class: 'pager' }, newer, h('span', { class: 'hint' }, `page ${earlier.length + 1}`), older),
    );
  };

  const exportStatus = h('span', { class: 'hint', role: 'status' });
  /** Every page of the filtered log as one CSV file: the server's CSV, page after page, one header. */
  const exportCsv = async (): Promise<void> => {
    exportStatus.textContent = 'Exporting…';
    const parts: string[] = [];
    let cursor: string | undefined;
    try {
      do {
        const response = await fetch(
          `${apiBase()}/console/api/requests${query({ ...filters(), limit: EXPORT_PAGE, cursor, format: 'csv' })}`,
          { headers: { authorization: `Bearer ${session.token ?? ''}` }, credentials: 'omit' },
        );
        if (!response.ok) throw new Error(`The export failed (HTTP ${response.status}).`);
        const text = await response.text();
        parts.push(parts.length === 0 ? text : text.slice(text.indexOf('\r\n') + 2));
        cursor = response.headers.get('x-next-cursor') ?? undefined;
      } while (cursor);
    } catch (failure) {
      exportStatus.textContent = (failure as Error).message;
      return;
    }
    const link = h('a', {
      href: URL.createObjectURL(new Blob(parts, { type: 'text/csv' })),
      download: `requests-${new Date().toISOString().slice(0, 10)}.csv`,
    });
    link.click();
    exportStatus.textContent = 'Exported.';
  };

  replaceChildren(
    root,
    h('h1', {}, 'Requests'),
    h('div', { class: 'toolbar' }, scope.picker),
    h(
      'form',
      {
        id: 'request-filters',
        class: 'card filters',
        onsubmit: (event: Event) => {
          event.preventDefault();
          earlier.length = 0;
          void show(undefined);
        },
      },
      h('label', {}, 'Key', key),
      h('label', {}, 'Model', model, modelList),
      h('label', {}, 'Status', status),
      h('label', {}, 'From', from),
      h('label', {}, 'To', to),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'submit' }, 'Filter'),
        h(
          'button',
          { type: 'button', id: 'export-csv', class: 'secondary', onclick: () => void exportCsv() },
          'Export CSV',
        ),
        exportStatus,
      ),
    ),
    every ? h('p', { class: 'hint' }, 'Across every account the log covers at most 31 days.') : null,
    error,
    results,
  );
  await show(undefined);
};
