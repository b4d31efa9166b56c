import { call, callList, query } from '../api.js';
import { formatCost, formatTime, h, replaceChildren } from '../dom.js';

/**
 * The operators' pages. They call the admin API itself (`/admin/v1/...`) with the operator's console
 * session: the same routes, checks and store as `gatewayctl`.
 */

interface Account {
  id: string;
  name: string;
  models: string[] | null;
  quota: { limit: number | null; used: number };
  status: string;
  createdAt: string;
}
interface Member {
  id: string;
  accountId: string;
  role: string;
  hasLocalPassword: boolean;
}
interface Channel {
  id: string;
  type: string;
  baseUrl: string | null;
  hasApiKey: boolean;
  models: string[];
  priority: number;
  enabled: boolean;
}
interface ModelSettings {
  id: string;
  pricing: { inputPerMTok: number; outputPerMTok: number } | null;
  aliases: string[];
}

const list = (text: string): string[] | undefined => {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
};

const table = (id: string, headings: string[], rows: (string | Node)[][]): HTMLElement =>
  h(
    'table',
    { id },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headings.map((heading) => h('th', {}, heading)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length === 0 ? h('tr', {}, h('td', { colspan: headings.length, class: 'hint' }, 'None yet.')) : null,
      rows.map((row) =>
        h(
          'tr',
          {},
          row.map((cell) => h('td', {}, cell)),
        ),
      ),
    ),
  );

/** A form whose submit runs `action` and redraws the page, or shows the server's message. */
const actionForm = (
  id: string,
  title: string,
  fields: HTMLElement[],
  action: () => Promise<unknown>,
  redraw: () => Promise<void>,
): HTMLElement => {
  const error = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      id,
      class: 'card',
      onsubmit: (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        action().then(redraw, (failure: Error) => (error.textContent = failure.message));
      },
    },
    h('h2', {}, title),
    fields,
    h('button', { type: 'submit' }, 'Save'),
    error,
  );
};

const field = (label: string, input: HTMLElement): HTMLElement => h('label', {}, label, input);

const accountsPage = async (root: HTMLElement): Promise<void> => {
  const accounts = await callList<Account>('/admin/v1/accounts');
  const name = h('input', { id: 'account-name', required: true });
  const models = h('input', { id: 'account-models', placeholder: 'empty: every model' });
  const quota = h('input', {
    id: 'account-quota',
    type: 'number',
    min: 0,
    step: 'any',
    placeholder: 'USD, empty: none',
  });
  const redraw = () => accountsPage(root);
  replaceChildren(
    root,
    h('h1', {}, 'Accounts'),
    table(
      'accounts',
      ['Id', 'Name', 'Models', 'Quota', 'Status', 'Created'],
      accounts.data.map((account) => [
        h('code', {}, account.id),
        account.name,
        account.models?.join(', ') ?? 'all',
        account.quota.limit === null
          ? `${formatCost(account.quota.used)} (no limit)`
          : `${formatCost(account.quota.used)} / ${formatCost(account.quota.limit)}`,
        account.status,
        formatTime(account.createdAt),
      ]),
    ),
    actionForm(
      'create-account',
      'Create an account',
      [field('Name', name), field('Models (comma-separated)', models), field('Quota', quota)],
      () =>
        call('POST', '/admin/v1/accounts', {
          name: name.value.trim(),
          ...(list(models.value) ? { models: list(models.value) } : {}),
          ...(quota.value ? { quota: { limit: Number(quota.value) } } : {}),
        }),
      redraw,
    ),
  );
};

const membersPage = async (root: HTMLElement): Promise<void> => {
  const [members, accounts, config] = await Promise.all([
    callList<Member>('/admin/v1/members'),
    callList<Account>('/admin/v1/accounts'),
    call<{ auth: string }>('GET', '/console/api/config'),
  ]);
  const email = h('input', { id: 'member-email', type: 'email', required: true });
  const account = h(
    'select',
    { id: 'member-account' },
    accounts.data.map((entry) => h('option', { value: entry.id }, `${entry.name} (${entry.id})`)),
  );
  const role = h(
    'select',
    { id: 'member-role' },
    ['member', 'account-admin', 'admin'].map((value) => h('option', { value }, value)),
  );
  const password = h('input', { id: 'member-password', type: 'password', minlength: 8, autocomplete: 'new-password' });
  const local = config.auth === 'local';
  const redraw = () => membersPage(root);
  const remove = (member: Member) =>
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: () => void call('DELETE', `/admin/v1/members/${encodeURIComponent(member.id)}`).then(redraw),
      },
      'Remove',
    );
  replaceChildren(
    root,
    h('h1', {}, 'Members'),
    h(
      'p',
      { class: 'hint' },
      local
        ? 'Locally, members sign in with the password set here.'
        : 'Members sign in through the user pool with this e-mail address; create them there too.',
    ),
    table(
      'members',
      ['E-mail', 'Account', 'Role', ''],
      members.data.map((member) => [member.id, h('code', {}, member.accountId), member.role, remove(member)]),
    ),
    actionForm(
      'put-member',
      'Add or change a member',
      [
        field('E-mail', email),
        field('Account', account),
        field('Role', role),
        local ? field('Password (local sign-in)', password) : h('span'),
      ],
      () =>
        call('PUT', `/admin/v1/members/${encodeURIComponent(email.value.trim())}`, {
          accountId: account.value,
          role: role.value,
          ...(local && password.value ? { password: password.value } : {}),
        }),
      redraw,
    ),
  );
};

const channelsPage = async (root: HTMLElement): Promise<void> => {
  const channels = await call<{ data: Channel[] }>('GET', '/admin/v1/channels');
  const id = h('input', { id: 'channel-id', required: true });
  const type = h(
    'select',
    { id: 'channel-type' },
    ['openai', 'anthropic', 'gemini', 'bedrock', 'demo'].map((value) => h('option', { value }, value)),
  );
  const baseUrl = h('input', { id: 'channel-base-url', type: 'url', placeholder: 'https://api.openai.com/v1' });
  const apiKey = h('input', {
    id: 'channel-api-key',
    type: 'password',
    autocomplete: 'off',
    placeholder: 'write-only',
  });
  const models = h('input', { id: 'channel-models', required: true });
  const redraw = () => channelsPage(root);
  replaceChildren(
    root,
    h('h1', {}, 'Channels'),
    table(
      'channels',
      ['Id', 'Type', 'Base URL', 'Key', 'Models', 'Priority', 'Enabled'],
      channels.data.map((channel) => [
        h('code', {}, channel.id),
        channel.type,
        channel.baseUrl ?? '—',
        channel.hasApiKey ? 'set' : '—',
        channel.models.join(', '),
        String(channel.priority),
        channel.enabled ? 'yes' : 'no',
      ]),
    ),
    actionForm(
      'put-channel',
      'Add or replace a channel (the key is never shown again)',
      [
        field('Id', id),
        field('Type', type),
        field('Base URL', baseUrl),
        field('API key', apiKey),
        field('Models (comma-separated)', models),
      ],
      () =>
        call('PUT', `/admin/v1/channels/${encodeURIComponent(id.value.trim())}`, {
          type: type.value,
          ...(baseUrl.value ? { baseUrl: baseUrl.value.trim() } : {}),
          ...(apiKey.value ? { apiKey: apiKey.value } : {}),
          models: list(models.value) ?? [],
        }),
      redraw,
    ),
  );
};

const modelSettingsPage = async (root: HTMLElement): Promise<void> => {
  const models = await call<{ data: ModelSettings[] }>('GET', `/admin/v1/models${query({})}`);
  const id = h('input', { id: 'model-id', required: true });
  const input = h('input', { id: 'model-input-price', type: 'number', min: 0, step: 'any', required: true });
  const output = h('input', { id: 'model-output-price', type: 'number', min: 0, step: 'any', required: true });
  const redraw = () => modelSettingsPage(root);
  replaceChildren(
    root,
    h('h1', {}, 'Models and prices'),
    table(
      'model-prices',
      ['Model', 'Input $/M tokens', 'Output $/M tokens', 'Aliases'],
      models.data.map((model) => [
        h('code', {}, model.id),
        model.pricing ? String(model.pricing.inputPerMTok) : '—',
        model.pricing ? String(model.pricing.outputPerMTok) : '—',
        model.aliases.join(', '),
      ]),
    ),
    actionForm(
      'put-model',
      'Set a price',
      [
        field('Model', id),
        field('Input, USD per million tokens', input),
        field('Output, USD per million tokens', output),
      ],
      () =>
        call('PUT', `/admin/v1/models/${encodeURIComponent(id.value.trim())}`, {
          pricing: { inputPerMTok: Number(input.value), outputPerMTok: Number(output.value) },
        }),
      redraw,
    ),
  );
};

export const operatorPages = [
  { path: 'accounts', label: 'Accounts', page: accountsPage },
  { path: 'members', label: 'Members', page: membersPage },
  { path: 'channels', label: 'Channels', page: channelsPage },
  { path: 'prices', label: 'Models & prices', page: modelSettingsPage },
] as const;
