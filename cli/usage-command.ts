import { CliError } from './admin-client.js';
import type { CommandContext } from './commands.js';
import { formatTable, type Column } from './table.js';

/** The answer of `GET /admin/v1/usage`, as far as the CLI prints it. */
interface UsageRecordView {
  readonly time: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly model: string;
  readonly endpoint: string;
  readonly status: string;
  readonly httpStatus?: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cost: number;
  readonly latencyMs: number;
  readonly overheadMs?: number | null;
}

interface UsageTotalsView {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

type UsageGroupView = UsageTotalsView & {
  readonly model?: string;
  readonly accountId?: string;
  readonly keyId?: string;
  readonly day?: string;
};

interface UsageAnswer {
  readonly data: readonly UsageRecordView[];
  readonly totals: UsageTotalsView;
  readonly nextCursor?: string | null;
  readonly groups?: readonly UsageGroupView[];
}

export const usageGroupings = ['model', 'account', 'key', 'day'] as const;
type Grouping = (typeof usageGroupings)[number];

const groupField: Readonly<Record<Grouping, keyof UsageGroupView>> = {
  model: 'model',
  account: 'accountId',
  key: 'keyId',
  day: 'day',
};

const recordColumns: readonly Column<UsageRecordView>[] = [
  { header: 'TIME', value: (row) => row.time },
  { header: 'ACCOUNT', value: (row) => row.accountId },
  { header: 'KEY', value: (row) => row.keyId },
  { header: 'MODEL', value: (row) => row.model },
  { header: 'ENDPOINT', value: (row) => row.endpoint },
  { header: 'STATUS', value: (row) => row.status },
  { header: 'PROMPT', value: (row) => row.promptTokens },
  { header: 'COMPLETION', value: (row) => row.completionTokens },
  { header: 'COST $', value: (row) => row.cost },
  { header: 'MS', value: (row) => row.latencyMs },
  { header: 'OVERHEAD MS', value: (row) => row.overheadMs },
];

const groupColumns = (grouping: Grouping): readonly Column<UsageGroupView>[] => [
  { header: grouping.toUpperCase(), value: (row) => row[groupField[grouping]] },
  { header: 'REQUESTS', value: (row) => row.requests },
  { header: 'PROMPT', value: (row) => row.promptTokens },
  { header: 'COMPLETION', value: (row) => row.completionTokens },
  { header: 'TOTAL', value: (row) => row.totalTokens },
  { header: 'COST $', value: (row) => row.cost },
];

const option = (context: CommandContext, name: string): string | undefined => {
  const value = context.options[name];
  return typeof value === 'string' ? value : undefined;
};

/** The query string of `GET /admin/v1/usage` from the command's options. */
export const usageQuery = (context: CommandContext): URLSearchParams => {
  const grouping = option(context, 'group-by');
  if (grouping !== undefined && !(usageGroupings as readonly string[]).includes(grouping)) {
    throw new CliError(`--group-by expects one of ${usageGroupings.join(', ')}, got '${grouping}'.`, 2);
  }
  const query = new URLSearchParams();
  const pairs: Array<[string, string | undefined]> = [
    ['accountId', option(context, 'account')],
    ['keyId', option(context, 'key-id')],
    ['model', option(context, 'model')],
    ['from', option(context, 'from')],
    ['to', option(context, 'to')],
    ['limit', option(context, 'limit')],
    ['cursor', option(context, 'cursor')],
    ['groupBy', grouping],
  ];
  for (const [name, value] of pairs) if (value !== undefined) query.set(name, value);
  return query;
};

/**
 * `gatewayctl usage`: the matching records (newest first, one page), the totals over the whole
 * query, the groups when `--group-by` is given, and how to ask for the next page.
 */
export const usageCommand = async (context: CommandContext): Promise<void> => {
  const query = usageQuery(context);
  const answer = (await context.client.request('GET', `/admin/v1/usage?${query}`)) as UsageAnswer;
  if (context.json) return context.print(JSON.stringify(answer, null, 2));
  const grouping = query.get('groupBy') as Grouping | null;
  if (grouping && answer.groups) {
    context.print(formatTable(answer.groups, groupColumns(grouping)));
  } else {
    context.print(formatTable(answer.data, recordColumns));
  }
  const totals = answer.totals;
  context.print(
    `\n${totals.requests} requests, ${totals.promptTokens} prompt + ${totals.completionTokens} completion = ${totals.totalTokens} tokens, $${totals.cost}`,
  );
  if (answer.nextCursor) context.print(`More records: add --cursor ${answer.nextCursor}`);
};
