import { readFile } from 'node:fs/promises';
import { CliError, listAll, type AdminClient } from './admin-client.js';
import { budgetColumn, budgetOption } from './budget-options.js';
import { membersCommands } from './members-command.js';
import { metricsCommand } from './metrics-command.js';
import { listModelsCommand } from './models-command.js';
import { formatRecord, formatTable, type Column } from './table.js';
import { usageCommand } from './usage-command.js';

export type Options = Record<string, string | boolean | undefined>;

export interface CommandContext {
  readonly client: AdminClient;
  readonly options: Options;
  readonly args: readonly string[];
  readonly json: boolean;
  print(text: string): void;
}

type Command = (context: CommandContext) => Promise<void>;

const text = (options: Options, name: string): string | undefined => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};

const required = (value: string | undefined, what: string): string => {
  if (!value) throw new CliError(`Missing ${what}.`, 2);
  return value;
};

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value === '' || value === 'all'
      ? null
      : value.split(',').map((item) => item.trim());

const number = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new CliError(`--${name} expects a number, got '${value}'.`, 2);
  return parsed;
};

const withoutUndefined = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));

const rateLimitOption = (options: Options) => {
  const rpm = number(text(options, 'rpm'), 'rpm');
  const tpm = number(text(options, 'tpm'), 'tpm');
  if (rpm === undefined && tpm === undefined) return undefined;
  return withoutUndefined({ rpm: rpm ?? undefined, tpm: tpm ?? undefined });
};

const show = <T>(context: CommandContext, payload: any, columns: readonly Column<T>[]) => {
  if (context.json) return context.print(JSON.stringify(payload, null, 2));
  if (Array.isArray(payload?.data)) return context.print(formatTable(payload.data as T[], columns));
  return context.print(formatRecord(payload));
};

const accountColumns: Column<any>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'NAME', value: (row) => row.name },
  { header: 'STATUS', value: (row) => row.status },
  { header: 'MODELS', value: (row) => row.models ?? 'all' },
  { header: 'QUOTA USED/LIMIT', value: (row) => `${row.quota.used}/${row.quota.limit ?? '-'}` },
  { header: 'RPM', value: (row) => row.rateLimit?.rpm },
  { header: 'TPM', value: (row) => row.rateLimit?.tpm },
  budgetColumn,
];

const keyColumns: Column<any>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'PREFIX', value: (row) => row.prefix },
  { header: 'NAME', value: (row) => row.name },
  { header: 'ROLE', value: (row) => row.role },
  { header: 'STATUS', value: (row) => row.status },
  { header: 'EXPIRES', value: (row) => row.expiresAt },
  { header: 'MODELS', value: (row) => row.models ?? 'account' },
  { header: 'RPM', value: (row) => row.rateLimit?.rpm },
  { header: 'TPM', value: (row) => row.rateLimit?.tpm },
  budgetColumn,
];

const channelColumns: Column<any>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'TYPE', value: (row) => row.type },
  { header: 'BASE URL', value: (row) => row.baseUrl },
  { header: 'MODELS', value: (row) => row.models },
  { header: 'PRIORITY', value: (row) => row.priority },
  { header: 'WEIGHT', value: (row) => row.weight },
  { header: 'ENABLED', value: (row) => row.enabled },
];

const modelColumns: Column<any>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'INPUT $/MTOK', value: (row) => row.pricing?.inputPerMTok },
  { header: 'OUTPUT $/MTOK', value: (row) => row.pricing?.outputPerMTok },
  { header: 'CACHED $/MTOK', value: (row) => row.pricing?.cachedInputPerMTok },
  { header: 'ALIASES', value: (row) => row.aliases },
  { header: 'OWNED BY', value: (row) => row.ownedBy },
];

const readJsonFile = async (path: string): Promise<unknown> => {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliError(
      `${path}: cannot read a JSON body (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    );
  }
};

const accountBody = (options: Options) =>
  withoutUndefined({
    name: text(options, 'name'),
    models: list(text(options, 'models')),
    quota: text(options, 'quota') === undefined ? undefined : { limit: number(text(options, 'quota'), 'quota') },
    rateLimit: rateLimitOption(options),
    status: text(options, 'status'),
    budget: budgetOption(options),
  });

/** The fields `keys create` and `keys update` share. */
const keyBody = (options: Options) =>
  withoutUndefined({
    name: text(options, 'name'),
    expiresAt: text(options, 'expires'),
    models: list(text(options, 'models')),
    rateLimit: rateLimitOption(options),
    allowedIps: list(text(options, 'allowed-ips')),
    budget: budgetOption(options),
  });

export const commands: Readonly<Record<string, Readonly<Record<string, Command>>>> = {
  accounts: {
    list: async (context) => show(context, await listAll(context.client, '/admin/v1/accounts'), accountColumns),
    create: async (context) => {
      const body = accountBody(context.options);
      required(body.name as string | undefined, '--name');
      show(context, await context.client.request('POST', '/admin/v1/accounts', body), accountColumns);
    },
    get: async (context) => {
      const id = required(context.args[0], 'the account id');
      show(
        context,
        await context.client.request('GET', `/admin/v1/accounts/${encodeURIComponent(id)}`),
        accountColumns,
      );
    },
    update: async (context) => {
      const id = required(context.args[0], 'the account id');
      show(
        context,
        await context.client.request(
          'PATCH',
          `/admin/v1/accounts/${encodeURIComponent(id)}`,
          accountBody(context.options),
        ),
        accountColumns,
      );
    },
    delete: async (context) => {
      const id = required(context.args[0], 'the account id');
      const deleted = await context.client.request('DELETE', `/admin/v1/accounts/${encodeURIComponent(id)}`);
      if (context.json) return context.print(JSON.stringify(deleted, null, 2));
      context.print(
        `Deleted account ${deleted.id} and its ${deleted.keysDeleted} keys (its usage records stay until they expire).`,
      );
    },
  },
  keys: {
    list: async (context) => {
      const accountId = required(text(context.options, 'account'), '--account');
      show(
        context,
        await listAll(context.client, `/admin/v1/keys?accountId=${encodeURIComponent(accountId)}`),
        keyColumns,
      );
    },
    create: async (context) => {
      const body = withoutUndefined({
        accountId: required(text(context.options, 'account'), '--account'),
        role: text(context.options, 'role'),
        ...keyBody(context.options),
      });
      const issued = await context.client.request('POST', '/admin/v1/keys', body);
      show(context, issued, keyColumns);
      if (!context.json) context.print('\nThe key is shown once: store it now.');
    },
    update: async (context) => {
      const id = required(context.args[0], 'the key id');
      show(
        context,
        await context.client.request('PATCH', `/admin/v1/keys/${encodeURIComponent(id)}`, keyBody(context.options)),
        keyColumns,
      );
    },
    revoke: async (context) => {
      const id = required(context.args[0], 'the key id');
      show(context, await context.client.request('DELETE', `/admin/v1/keys/${encodeURIComponent(id)}`), keyColumns);
    },
  },
  channels: {
    list: async (context) => show(context, await context.client.request('GET', '/admin/v1/channels'), channelColumns),
    put: async (context) => {
      const id = required(context.args[0], 'the channel id');
      const file = text(context.options, 'file');
      const body = file
        ? await readJsonFile(file)
        : withoutUndefined({
            type: required(text(context.options, 'type'), '--type (or -f body.json)'),
            baseUrl: text(context.options, 'base-url'),
            apiKey: text(context.options, 'api-key'),
            models: list(required(text(context.options, 'models'), '--models')),
            priority: number(text(context.options, 'priority'), 'priority') ?? undefined,
            weight: number(text(context.options, 'weight'), 'weight') ?? undefined,
          });
      show(
        context,
        await context.client.request('PUT', `/admin/v1/channels/${encodeURIComponent(id)}`, body),
        channelColumns,
      );
    },
    delete: async (context) => {
      const id = required(context.args[0], 'the channel id');
      show(
        context,
        await context.client.request('DELETE', `/admin/v1/channels/${encodeURIComponent(id)}`),
        channelColumns,
      );
    },
  },
  models: {
    list: listModelsCommand,
    put: async (context) => {
      const id = required(context.args[0], 'the model id');
      const input = number(text(context.options, 'input'), 'input');
      const output = number(text(context.options, 'output'), 'output');
      const cached = number(text(context.options, 'cached-input'), 'cached-input');
      if ((input == null) !== (output == null))
        throw new CliError('--input and --output go together (USD per million tokens).', 2);
      const body = withoutUndefined({
        pricing:
          input == null
            ? undefined
            : withoutUndefined({ inputPerMTok: input, outputPerMTok: output, cachedInputPerMTok: cached ?? undefined }),
        aliases: list(text(context.options, 'aliases')) ?? undefined,
        ownedBy: text(context.options, 'owned-by'),
      });
      show(
        context,
        await context.client.request('PUT', `/admin/v1/models/${encodeURIComponent(id)}`, body),
        modelColumns,
      );
    },
  },
  members: membersCommands,
  usage: { '': usageCommand },
  metrics: { '': metricsCommand },
  apply: {
    '': async (context) => {
      const file = required(text(context.options, 'file'), '-f config.yaml');
      // Loaded only here: the config schema and YAML parser are most of the CLI's start-up time.
      const { GatewayConfigError, loadGatewayConfigFile } =
        await import('../functions/shared/config/gateway-config.js');
      let config;
      try {
        config = await loadGatewayConfigFile(file);
      } catch (error) {
        if (error instanceof GatewayConfigError) throw new CliError(`Invalid config file: ${error.message}`);
        throw error;
      }
      const { applied } = await context.client.request('POST', '/admin/v1/apply', config);
      if (context.json) return context.print(JSON.stringify(applied, null, 2));
      context.print(
        `Applied ${file}: ${applied.channels} channels, ${applied.models} models, ${applied.accounts} accounts, ${applied.keys} keys, ${applied.members} members.`,
      );
      for (const warning of (applied.warnings ?? []) as string[]) context.print(`Warning: ${warning}`);
    },
  },
};
