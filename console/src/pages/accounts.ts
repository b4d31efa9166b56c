import { call, query } from '../api.js';
import {
  actionButton,
  actionForm,
  dataTable,
  field,
  formatCost,
  formatTime,
  h,
  listOf,
  replaceChildren,
} from '../dom.js';
import type { Me } from '../main.js';
import { listAccounts, type AccountSummary } from '../scope.js';

const DAY_MS = 86_400_000;

interface SpendByAccount {
  readonly byAccount: { accountId: string; requests: number; cost: number }[];
}

/** The fields of an account, filled from `account` when editing one. */
const accountFields = (prefix: string, account?: AccountSummary) => ({
  name: h('input', { id: `${prefix}-name`, required: true, maxlength: 200, value: account?.name ?? '' }),
  models: h('input', {
    id: `${prefix}-models`,
    placeholder: 'empty: every model',
    value: account?.models?.join(', ') ?? '',
  }),
  quota: h('input', {
    id: `${prefix}-quota`,
    type: 'number',
    min: 0,
    step: 'any',
    placeholder: 'USD, empty: none',
    value: account?.quota.limit ?? '',
  }),
  rpm: h('input', {
    id: `${prefix}-rpm`,
    type: 'number',
    min: 1,
    step: 1,
    placeholder: 'none',
    value: account?.rateLimit?.rpm ?? '',
  }),
  tpm: h('input', {
    id: `${prefix}-tpm`,
    type: 'number',
    min: 1,
    step: 1,
    placeholder: 'none',
    value: account?.rateLimit?.tpm ?? '',
  }),
});

type Fields = ReturnType<typeof accountFields>;

const fieldList = (fields: Fields) => [
  field('Name', fields.name),
  field('Models (comma-separated)', fields.models),
  field('Quota', fields.quota),
  field('Requests per minute', fields.rpm),
  field('Tokens per minute', fields.tpm),
];

const bodyOf = (fields: Fields) => ({
  name: fields.name.value.trim(),
  models: listOf(fields.models.value) ?? null,
  quota: { limit: fields.quota.value ? Number(fields.quota.value) : null },
  rateLimit:
    fields.rpm.value || fields.tpm.value
      ? {
          ...(fields.rpm.value ? { rpm: Number(fields.rpm.value) } : {}),
          ...(fields.tpm.value ? { tpm: Number(fields.tpm.value) } : {}),
        }
      : null,
});

/** Operators: every account, what it spent in 30 days (from the usage records), edit, disable, delete. */
export const accountsPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const from = new Date(Date.now() - 30 * DAY_MS).toISOString();
  const [accounts, spend] = await Promise.all([
    listAccounts(me.user),
    call<SpendByAccount>('GET', `/console/api/overview${query({ from })}`),
  ]);
  const spent = new Map(spend.byAccount.map((group) => [group.accountId, group]));
  const editArea = h('div', { id: 'account-edit' });
  const openKeys = (account: AccountSummary) => {
    sessionStorage.setItem('model-gateway.account', account.id);
    location.hash = '#/keys';
  };
  const edit = (account: AccountSummary) => {
    const fields = accountFields('edit-account', account);
    replaceChildren(
      editArea,
      actionForm(
        'edit-account',
        `Edit ${account.name}`,
        fieldList(fields),
        'Save',
        () => call('PATCH', `/admin/v1/accounts/${encodeURIComponent(account.id)}`, bodyOf(fields)),
        redraw,
        [h('button', { type: 'button', class: 'secondary', onclick: () => replaceChildren(editArea) }, 'Cancel')],
      ),
    );
    editArea.scrollIntoView({ block: 'nearest' });
  };
  const remove = async (account: AccountSummary): Promise<void> => {
    const typed = prompt(
      `Deleting "${account.name}" deletes its keys and members for good; its usage records stay. Type the account's name to delete it:`,
    );
    if (typed === null) return;
    if (typed.trim() !== account.name) {
      alert('The name did not match; nothing was deleted.');
      return;
    }
    await call('DELETE', `/admin/v1/accounts/${encodeURIComponent(account.id)}`);
    redraw();
  };
  const created = accountFields('account');
  replaceChildren(
    root,
    h('h1', {}, 'Accounts'),
    dataTable(
      'accounts',
      ['Name', 'Spent, 30 days', 'Requests, 30 days', 'Quota', 'Models', 'Status', 'Created', ''],
      accounts.map((account) => [
        h('span', {}, account.name, h('br'), h('code', { class: 'hint' }, account.id)),
        formatCost(spent.get(account.id)?.cost ?? 0),
        String(spent.get(account.id)?.requests ?? 0),
        account.quota.limit === null
          ? 'none'
          : `${formatCost(account.quota.used)} of ${formatCost(account.quota.limit)}`,
        account.models?.join(', ') ?? 'all',
        h('span', { class: `status ${account.status}` }, account.status),
        formatTime(account.createdAt),
        h(
          'span',
          { class: 'row-actions' },
          h('button', { type: 'button', class: 'secondary small', onclick: () => openKeys(account) }, 'Keys'),
          h('button', { type: 'button', class: 'secondary small', onclick: () => edit(account) }, 'Edit'),
          account.id === me.user.accountId
            ? null
            : actionButton(
                account.status === 'active' ? 'Disable' : 'Enable',
                () =>
                  call('PATCH', `/admin/v1/accounts/${encodeURIComponent(account.id)}`, {
                    status: account.status === 'active' ? 'disabled' : 'active',
                  }),
                {
                  question:
                    account.status === 'active'
                      ? `Disable "${account.name}"? Its keys are refused until it is enabled again.`
                      : undefined,
                  done: redraw,
                },
              ),
          account.id === me.user.accountId
            ? null
            : h(
                'button',
                {
                  type: 'button',
                  class: 'danger small',
                  onclick: () => void remove(account).catch((failure: Error) => alert(failure.message)),
                },
                'Delete',
              ),
        ),
      ]),
      'No accounts yet.',
      (index) => ({ 'data-account-id': accounts[index]!.id }),
    ),
    editArea,
    actionForm(
      'create-account',
      'Create an account',
      fieldList(created),
      'Create',
      () =>
        call(
          'POST',
          '/admin/v1/accounts',
          Object.fromEntries(Object.entries(bodyOf(created)).filter(([, value]) => value !== null)),
        ),
      redraw,
    ),
  );
};
