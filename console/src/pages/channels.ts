import { call } from '../api.js';
import { actionButton, actionForm, dataTable, field, h, listOf, replaceChildren, timeAgo } from '../dom.js';

/** How a channel's requests of the last hour ended, and whether this instance is letting it cool down. */
interface Health {
  id: string;
  requests: number;
  failures: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  coolingUntil: string | null;
}

interface TestResult {
  ok: boolean;
  latencyMs: number;
  model: string | null;
  status?: number | null;
  message?: string;
}

const healthCell = (health: Health | undefined): HTMLElement => {
  if (!health || health.requests === 0) return h('span', { class: 'hint' }, 'no requests in the last hour');
  return h(
    'span',
    {},
    `${health.requests - health.failures} ok, `,
    h('span', { class: health.failures > 0 ? 'warning' : '' }, `${health.failures} failed`),
    ' (1 h)',
    health.coolingUntil
      ? [h('br'), h('span', { class: 'warning' }, 'cooling down until ', timeAgo(health.coolingUntil))]
      : null,
    health.lastFailureAt
      ? [h('br'), h('small', { class: 'hint' }, 'last failure ', timeAgo(health.lastFailureAt))]
      : null,
  );
};

/** "Test": one small request to the channel; the answer shows in the row. */
const testButton = (channel: { id: string }): HTMLElement => {
  const result = h('output', { class: 'hint', 'data-test-result': channel.id });
  const button = h('button', { type: 'button', class: 'secondary small' }, 'Test');
  button.addEventListener('click', () => {
    button.disabled = true;
    result.textContent = 'testing…';
    call<TestResult>('POST', `/console/api/channels/${encodeURIComponent(channel.id)}/test`).then(
      (answer) => {
        button.disabled = false;
        result.className = answer.ok ? 'status success' : 'status error';
        result.textContent = answer.ok
          ? `OK, ${answer.latencyMs} ms (${answer.model})`
          : `Failed${answer.status ? ` (${answer.status})` : ''}: ${answer.message ?? ''}`;
      },
      (failure: Error) => {
        button.disabled = false;
        result.textContent = failure.message;
      },
    );
  });
  return h('span', { class: 'test' }, button, result);
};

/** A channel as the admin API shows it: never its upstream key, only whether one is stored. */
interface Channel {
  id: string;
  type: string;
  baseUrl: string | null;
  hasApiKey: boolean;
  models: string[];
  modelMap: Record<string, string>;
  endpoints: string[] | null;
  priority: number;
  weight: number;
  enabled: boolean;
  timeouts: Record<string, number> | null;
}

const types = ['openai', 'anthropic', 'gemini', 'bedrock', 'demo'] as const;

/** The channel as a PUT body, with changes: the stored upstream key is kept (no `apiKey`). */
const bodyOf = (channel: Channel, changes: Partial<Channel> = {}) => {
  const merged = { ...channel, ...changes };
  return {
    type: merged.type,
    ...(merged.baseUrl ? { baseUrl: merged.baseUrl } : {}),
    models: merged.models,
    modelMap: merged.modelMap,
    endpoints: merged.endpoints,
    priority: merged.priority,
    weight: merged.weight,
    enabled: merged.enabled,
    timeouts: merged.timeouts,
  };
};

const channelForm = (channel: Channel | undefined, redraw: () => void, cancel?: () => void): HTMLElement => {
  const prefix = channel ? 'edit-channel' : 'channel';
  const id = h('input', {
    id: `${prefix}-id`,
    required: true,
    value: channel?.id ?? '',
    readonly: channel !== undefined,
  });
  const type = h(
    'select',
    { id: `${prefix}-type` },
    types.map((value) => h('option', { value, selected: value === channel?.type }, value)),
  );
  const baseUrl = h('input', {
    id: `${prefix}-base-url`,
    type: 'url',
    placeholder: 'https://api.openai.com/v1',
    value: channel?.baseUrl ?? '',
  });
  const apiKey = h('input', {
    id: `${prefix}-api-key`,
    type: 'password',
    autocomplete: 'off',
    placeholder: channel?.hasApiKey ? 'stored; empty keeps it' : 'write-only',
  });
  const models = h('input', { id: `${prefix}-models`, required: true, value: channel?.models.join(', ') ?? '' });
  const priority = h('input', { id: `${prefix}-priority`, type: 'number', step: 1, value: channel?.priority ?? 0 });
  const weight = h('input', { id: `${prefix}-weight`, type: 'number', min: 1, step: 1, value: channel?.weight ?? 1 });
  const enabled = h('input', { id: `${prefix}-enabled`, type: 'checkbox', checked: channel?.enabled ?? true });
  return actionForm(
    `${prefix}-form`,
    channel ? `Edit ${channel.id}` : 'Add a channel (its key is never shown again)',
    [
      field('Id', id),
      field('Type', type),
      field('Base URL', baseUrl),
      field('API key', apiKey),
      field('Models (comma-separated)', models),
      field('Priority (higher first)', priority),
      field('Weight', weight),
      h('label', { class: 'inline' }, enabled, 'Enabled'),
    ],
    'Save',
    () =>
      call('PUT', `/admin/v1/channels/${encodeURIComponent(id.value.trim())}`, {
        ...(channel ? bodyOf(channel) : {}),
        type: type.value,
        ...(baseUrl.value ? { baseUrl: baseUrl.value.trim() } : {}),
        ...(apiKey.value ? { apiKey: apiKey.value } : {}),
        models: listOf(models.value) ?? [],
        priority: Number(priority.value || 0),
        weight: Number(weight.value || 1),
        enabled: enabled.checked,
      }),
    redraw,
    cancel ? [h('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel')] : [],
  );
};

/** Operators: the channels that serve models; add, edit, enable or disable, delete. */
export const channelsPage = async (root: HTMLElement, _me: unknown, redraw: () => void): Promise<void> => {
  const [channels, health] = await Promise.all([
    call<{ data: Channel[] }>('GET', '/admin/v1/channels'),
    call<{ data: Health[] }>('GET', '/console/api/channels/health').catch(() => ({ data: [] as Health[] })),
  ]);
  const healthById = new Map(health.data.map((entry) => [entry.id, entry]));
  const editArea = h('div', { id: 'channel-edit' });
  const edit = (channel: Channel) => {
    replaceChildren(
      editArea,
      channelForm(channel, redraw, () => replaceChildren(editArea)),
    );
    editArea.scrollIntoView({ block: 'nearest' });
  };
  const demoRetired =
    channels.data.some((channel) => channel.id !== 'demo') &&
    channels.data.some((channel) => channel.id === 'demo' && channel.type === 'demo');
  replaceChildren(
    root,
    h('h1', {}, 'Channels'),
    demoRetired
      ? h(
          'p',
          { class: 'hint' },
          "The built-in channel 'demo' serves nothing while other channels exist; delete it to stop listing it.",
        )
      : null,
    dataTable(
      'channels',
      ['Id', 'Type', 'Base URL', 'Key', 'Models', 'Priority', 'Status', 'Health', ''],
      channels.data.map((channel) => [
        h('code', {}, channel.id),
        channel.type,
        channel.baseUrl ?? '—',
        channel.hasApiKey ? 'stored' : '—',
        channel.models.join(', '),
        String(channel.priority),
        h(
          'span',
          { class: `status ${channel.enabled ? 'active' : 'disabled'}` },
          channel.enabled ? 'enabled' : 'disabled',
        ),
        healthCell(healthById.get(channel.id)),
        h(
          'span',
          { class: 'row-actions' },
          testButton(channel),
          h('button', { type: 'button', class: 'secondary small', onclick: () => edit(channel) }, 'Edit'),
          actionButton(
            channel.enabled ? 'Disable' : 'Enable',
            () =>
              call(
                'PUT',
                `/admin/v1/channels/${encodeURIComponent(channel.id)}`,
                bodyOf(channel, { enabled: !channel.enabled }),
              ),
            {
              question: channel.enabled
                ? `Disable ${channel.id}? Its models go to other channels, or answer 503.`
                : undefined,
              done: redraw,
            },
          ),
          actionButton('Delete', () => call('DELETE', `/admin/v1/channels/${encodeURIComponent(channel.id)}`), {
            danger: true,
            question: `Delete the channel ${channel.id} and its stored key? This cannot be undone.`,
            done: redraw,
          }),
        ),
      ]),
      'No channels yet.',
      (index) => ({ 'data-channel-id': channels.data[index]!.id }),
    ),
    editArea,
    channelForm(undefined, redraw),
  );
};
