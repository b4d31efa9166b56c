import { call, query } from '../api.js';
import { actionButton, dataTable, field, formatTime, h, replaceChildren, timeAgo } from '../dom.js';
import type { Me } from '../main.js';
import { accountQuery, pageScope, type PageScope } from '../scope.js';

export interface KeyView {
  readonly id: string;
  readonly prefix: string;
  readonly accountId: string;
  readonly name: string | null;
  readonly role: 'user' | 'admin';
  readonly status: 'active' | 'revoked';
  readonly expiresAt: string | null;
  readonly models: string[] | null;
  readonly rateLimit: { rpm?: number; tpm?: number } | null;
  readonly owner: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

interface ModelList {
  readonly data: { id: string }[];
}

const DAY_MS = 86_400_000;
const expiryChoices: readonly [string, number | null][] = [
  ['Never', null],
  ['7 days', 7],
  ['30 days', 30],
  ['90 days', 90],
  ['1 year', 365],
];

/** A freshly created key, shown once with a copy button. */
const issuedKeyBox = (key: string): HTMLElement => {
  const copied = h('span', { class: 'hint', role: 'status' });
  return h(
    'section',
    { class: 'issued', id: 'issued-key' },
    h('h2', {}, 'Your new key'),
    h('p', {}, 'Copy it now: it is shown only once, and the gateway keeps only its hash.'),
    h('code', { id: 'new-key' }, key),
    h(
      'button',
      {
        type: 'button',
        id: 'copy-key',
        onclick: () => {
          void navigator.clipboard.writeText(key).then(
            () => (copied.textContent = 'Copied.'),
            () => (copied.textContent = 'Select the key and copy it by hand.'),
          );
        },
      },
      'Copy',
    ),
    copied,
  );
};

const modelBoxes = (models: ModelList, chosen: readonly string[] | null) =>
  models.data.map((model) =>
    h('input', { type: 'checkbox', value: model.id, name: 'models', checked: chosen?.includes(model.id) ?? false }),
  );

const modelFieldset = (boxes: HTMLInputElement[]) =>
  h(
    'fieldset',
    {},
    h('legend', {}, 'Models (none ticked: every model of the account)'),
    boxes.length === 0 ? h('p', { class: 'hint' }, 'The account may not call any model yet.') : null,
    boxes.map((box) => h('label', { class: 'inline' }, box, box.value)),
  );

const ticked = (boxes: HTMLInputElement[]) => boxes.filter((box) => box.checked).map((box) => box.value);

/**
 * Why revoking this key deserves a second look: it is the key this operator signed in with, or the
 * last active admin key (without which nobody reaches the admin API).
 */
const revokeWarning = (key: KeyView, me: Me, keys: readonly KeyView[]): string => {
  const name = `"${key.name ?? key.prefix}"`;
  if (me.user.id === `admin-key:${key.id}`)
    return `${name} is the key you signed in with: revoking it ends this session, and the key cannot sign in again. Revoke it?`;
  const admins = keys.filter((other) => other.role === 'admin' && other.status === 'active');
  if (key.role === 'admin' && admins.length === 1)
    return `${name} is the last active admin key: without it, only another operator's session or a new GATEWAY_ADMIN_KEY reaches the admin API. Revoke it?`;
  return `Revoke the key ${name}? Clients using it stop working at once; this cannot be undone.`;
};

/** The edit form of one key, in place of its row's details. */
const editForm = (key: KeyView, models: ModelList, me: Me, done: () => void): HTMLElement => {
  const name = h('input', { name: 'name', value: key.name ?? '', maxlength: 200, required: true });
  const expires = h('input', {
    name: 'expires',
    type: 'datetime-local',
    value: key.expiresAt
      ? new Date(Date.parse(key.expiresAt) - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
      : '',
  });
  const boxes = modelBoxes(models, key.models);
  const mayLimit = me.user.role !== 'member';
  const rpm = h('input', {
    name: 'rpm',
    type: 'number',
    min: 1,
    step: 1,
    value: key.rateLimit?.rpm ?? '',
    placeholder: 'none',
  });
  const tpm = h('input', {
    name: 'tpm',
    type: 'number',
    min: 1,
    step: 1,
    value: key.rateLimit?.tpm ?? '',
    placeholder: 'none',
  });
  const error = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      class: 'card edit',
      'data-edit-key': key.id,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const chosen = ticked(boxes);
        call('PATCH', `/console/api/keys/${encodeURIComponent(key.id)}`, {
          name: name.value.trim(),
          expiresAt: expires.value ? new Date(expires.value).toISOString() : null,
          models: chosen.length > 0 ? chosen : null,
          ...(mayLimit
            ? {
                rateLimit:
                  rpm.value || tpm.value
                    ? {
                        ...(rpm.value ? { rpm: Number(rpm.value) } : {}),
                        ...(tpm.value ? { tpm: Number(tpm.value) } : {}),
                      }
                    : null,
              }
            : {}),
        }).then(done, (failure: Error) => (error.textContent = failure.message));
      },
    },
    h('h3', {}, `Edit ${key.name ?? key.prefix}`),
    field('Name', name),
    field('Expires (empty: never)', expires),
    modelFieldset(boxes),
    mayLimit ? field('Requests per minute', rpm) : null,
    mayLimit ? field('Tokens per minute', tpm) : null,
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit' }, 'Save'),
      h('button', { type: 'button', class: 'secondary', onclick: done }, 'Cancel'),
    ),
    error,
  );
};

const drawKeys = async (
  root: HTMLElement,
  me: Me,
  redraw: () => void,
  scope: PageScope,
  issuedKey?: string,
): Promise<void> => {
  const inScope = accountQuery(scope);
  const [keys, models] = await Promise.all([
    call<{ data: KeyView[] }>('GET', `/console/api/keys${query(inScope)}`),
    call<ModelList>('GET', `/console/api/models${query(inScope)}`),
  ]);
  const again = (issued?: string) => void drawKeys(root, me, redraw, scope, issued);
  const error = h('p', { class: 'error', role: 'alert' });
  const name = h('input', { id: 'key-name', required: true, maxlength: 200, placeholder: 'laptop, CI, …' });
  const expiry = h(
    'select',
    { id: 'key-expiry' },
    expiryChoices.map(([label, days]) => h('option', { value: days ?? '' }, label)),
  );
  const boxes = modelBoxes(models, null);

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    error.textContent = '';
    const days = expiry.value ? Number(expiry.value) : null;
    const chosen = ticked(boxes);
    try {
      const issued = await call<KeyView & { key: string }>('POST', '/console/api/keys', {
        name: name.value.trim(),
        expiresAt: days === null ? null : new Date(Date.now() + days * DAY_MS).toISOString(),
        ...(chosen.length > 0 ? { models: chosen } : {}),
        ...inScope,
      });
      again(issued.key);
    } catch (failure) {
      error.textContent = (failure as Error).message;
    }
  };

  const editArea = h('div', { id: 'key-edit' });
  const seesOthers = me.user.role !== 'member';
  const rows = keys.data.map((key) => [
    h('span', {}, key.name ?? '—', key.role === 'admin' ? h('span', { class: 'badge' }, 'admin') : null),
    h('code', {}, `${key.prefix}…`),
    ...(seesOthers ? [key.owner ?? '—'] : []),
    key.models?.join(', ') ?? 'all',
    key.rateLimit
      ? [
          key.rateLimit.rpm ? `${key.rateLimit.rpm} rpm` : '',
          key.rateLimit.tpm ? ` ${key.rateLimit.tpm} tpm` : '',
        ].join('')
      : '—',
    timeAgo(key.lastUsedAt),
    formatTime(key.createdAt),
    key.expiresAt ? formatTime(key.expiresAt) : 'never',
    h('span', { class: `status ${key.status}` }, key.status),
    key.status === 'active'
      ? h(
          'span',
          { class: 'row-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              onclick: () => {
                replaceChildren(
                  editArea,
                  editForm(key, models, me, () => again()),
                );
                editArea.scrollIntoView({ block: 'nearest' });
              },
            },
            'Edit',
          ),
          actionButton('Revoke', () => call('DELETE', `/console/api/keys/${encodeURIComponent(key.id)}`), {
            danger: true,
            question: revokeWarning(key, me, keys.data),
            done: () => again(),
          }),
        )
      : null,
  ]);
  replaceChildren(
    root,
    h('h1', {}, 'API keys'),
    h('div', { class: 'toolbar' }, scope.picker),
    issuedKey ? issuedKeyBox(issuedKey) : null,
    dataTable(
      'keys',
      [
        'Name',
        'Key',
        ...(seesOthers ? ['Owner'] : []),
        'Models',
        'Limits',
        'Last used',
        'Created',
        'Expires',
        'Status',
        '',
      ],
      rows,
      'No keys yet.',
      (index) => ({ 'data-key-id': keys.data[index]!.id }),
    ),
    editArea,
    h(
      'form',
      { id: 'create-key', class: 'card', onsubmit: (event: Event) => void create(event) },
      h('h2', {}, `Create a key${scope.accounts.length > 0 ? ` in ${scope.accountName}` : ''}`),
      h('label', {}, 'Name', name),
      h('label', {}, 'Expires', expiry),
      modelFieldset(boxes),
      h('button', { type: 'submit' }, 'Create key'),
      error,
    ),
  );
};

export const keysPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> =>
  drawKeys(root, me, redraw, await pageScope(me.user, me.account.name, false, redraw));
