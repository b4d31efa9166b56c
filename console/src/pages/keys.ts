import { call } from '../api.js';
import { formatTime, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';

export interface KeyView {
  readonly id: string;
  readonly prefix: string;
  readonly name: string | null;
  readonly status: 'active' | 'revoked';
  readonly expiresAt: string | null;
  readonly models: string[] | null;
  readonly owner: string | null;
  readonly createdAt: string;
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

/** The key list and the form; `issuedKey` is shown above them right after a creation. */
const drawKeys = async (root: HTMLElement, me: Me, issuedKey?: string): Promise<void> => {
  const [keys, models] = await Promise.all([
    call<{ data: KeyView[] }>('GET', '/console/api/keys'),
    call<ModelList>('GET', '/console/api/models'),
  ]);
  const error = h('p', { class: 'error', role: 'alert' });
  const name = h('input', { id: 'key-name', required: true, maxlength: 200, placeholder: 'laptop, CI, …' });
  const expiry = h(
    'select',
    { id: 'key-expiry' },
    expiryChoices.map(([label, days]) => h('option', { value: days ?? '' }, label)),
  );
  const modelBoxes = models.data.map((model) => h('input', { type: 'checkbox', value: model.id, name: 'models' }));

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    error.textContent = '';
    const days = expiry.value ? Number(expiry.value) : null;
    const chosen = modelBoxes.filter((box) => box.checked).map((box) => box.value);
    try {
      const issued = await call<KeyView & { key: string }>('POST', '/console/api/keys', {
        name: name.value.trim(),
        expiresAt: days === null ? null : new Date(Date.now() + days * DAY_MS).toISOString(),
        ...(chosen.length > 0 ? { models: chosen } : {}),
      });
      await drawKeys(root, me, issued.key);
    } catch (failure) {
      error.textContent = (failure as Error).message;
    }
  };

  const revoke = async (key: KeyView): Promise<void> => {
    if (!confirm(`Revoke the key "${key.name ?? key.prefix}"? Clients using it stop working.`)) return;
    await call('DELETE', `/console/api/keys/${encodeURIComponent(key.id)}`);
    await drawKeys(root, me);
  };

  const seesOthers = me.user.role !== 'member';
  replaceChildren(
    root,
    h('h1', {}, 'API keys'),
    issuedKey ? issuedKeyBox(issuedKey) : null,
    h(
      'form',
      { id: 'create-key', class: 'card', onsubmit: (event: Event) => void create(event) },
      h('h2', {}, 'Create a key'),
      h('label', {}, 'Name', name),
      h('label', {}, 'Expires', expiry),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Models (none ticked: every model of the account)'),
        modelBoxes.length === 0 ? h('p', { class: 'hint' }, 'The account may not call any model yet.') : null,
        modelBoxes.map((box) => h('label', { class: 'inline' }, box, box.value)),
      ),
      h('button', { type: 'submit' }, 'Create key'),
      error,
    ),
    h(
      'table',
      { id: 'keys' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Name'),
          h('th', {}, 'Key'),
          seesOthers ? h('th', {}, 'Owner') : null,
          h('th', {}, 'Models'),
          h('th', {}, 'Created'),
          h('th', {}, 'Expires'),
          h('th', {}, 'Status'),
          h('th', {}),
        ),
      ),
      h(
        'tbody',
        {},
        keys.data.length === 0 ? h('tr', {}, h('td', { colspan: 8, class: 'hint' }, 'No keys yet.')) : null,
        keys.data.map((key) =>
          h(
            'tr',
            { 'data-key-id': key.id },
            h('td', {}, key.name ?? '—'),
            h('td', {}, h('code', {}, `${key.prefix}…`)),
            seesOthers ? h('td', {}, key.owner ?? '—') : null,
            h('td', {}, key.models?.join(', ') ?? 'all'),
            h('td', {}, formatTime(key.createdAt)),
            h('td', {}, key.expiresAt ? formatTime(key.expiresAt) : 'never'),
            h('td', { class: `status ${key.status}` }, key.status),
            h(
              'td',
              {},
              key.status === 'active'
                ? h('button', { type: 'button', class: 'danger', onclick: () => void revoke(key) }, 'Revoke')
                : null,
            ),
          ),
        ),
      ),
    ),
  );
};

export const keysPage = (root: HTMLElement, me: Me): Promise<void> => drawKeys(root, me);
