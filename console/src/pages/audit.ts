import { auditActions, type AuditEntry } from '../../../functions/shared/store/audit-entry.js';
import { call, query } from '../api.js';
import { dataTable, formatTime, h, replaceChildren } from '../dom.js';

const PAGE_SIZE = 50;

/** Operators: who changed what, and when (`GET /console/api/audit`), newest first, a page at a time. */
export const auditPage = async (root: HTMLElement): Promise<void> => {
  const action = h(
    'select',
    { id: 'audit-action' },
    h('option', { value: '' }, 'any'),
    auditActions.map((value) => h('option', { value }, value)),
  );
  const actor = h('input', { id: 'audit-actor', placeholder: 'an e-mail address or admin key id' });
  const results = h('div', { id: 'audit-results' });
  const error = h('p', { class: 'error', role: 'alert' });
  const earlier: (string | undefined)[] = [];
  let current: string | undefined;

  const show = async (cursor: string | undefined): Promise<void> => {
    error.textContent = '';
    let page: { data: AuditEntry[]; nextCursor?: string };
    try {
      page = await call(
        'GET',
        `/console/api/audit${query({
          action: action.value || undefined,
          actorId: actor.value.trim() || undefined,
          limit: PAGE_SIZE,
          cursor,
        })}`,
      );
    } catch (failure) {
      error.textContent = (failure as Error).message;
      return;
    }
    current = cursor;
    const newer = h('button', { type: 'button', class: 'secondary', disabled: earlier.length === 0 }, 'Newer');
    newer.addEventListener('click', () => void show(earlier.pop()));
    const older = h('button', { type: 'button', class: 'secondary', disabled: !page.nextCursor }, 'Older');
    older.addEventListener('click', () => {
      earlier.push(current);
      void show(page.nextCursor);
    });
    replaceChildren(
      results,
      dataTable(
        'audit',
        ['Time', 'Who', 'Action', 'What', 'From'],
        page.data.map((entry) => [
          formatTime(entry.at),
          entry.actor.kind === 'admin-key'
            ? h('span', {}, 'admin key ', h('code', {}, entry.actor.id))
            : entry.actor.id,
          h('code', {}, entry.action),
          h('span', {}, `${entry.target.kind} `, h('code', {}, entry.target.id)),
          entry.sourceIp ?? '—',
        ]),
        'Nothing recorded yet.',
      ),
      h('div', { class: 'pager' }, newer, h('span', { class: 'hint' }, `page ${earlier.length + 1}`), older),
    );
  };

  replaceChildren(
    root,
    h('h1', {}, 'Audit'),
    h(
      'form',
      {
        id: 'audit-filters',
        class: 'card filters',
        onsubmit: (event: Event) => {
          event.preventDefault();
          earlier.length = 0;
          void show(undefined);
        },
      },
      h('label', {}, 'Action', action),
      h('label', {}, 'Who', actor),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Filter')),
    ),
    error,
    results,
  );
  await show(undefined);
};
