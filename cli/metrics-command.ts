import type { CommandContext } from './commands.js';
import { formatTable, type Column } from './table.js';

/** One group of `GET /admin/v1/metrics`. */
interface MetricsGroupView {
  readonly model?: string;
  readonly accountId?: string;
  readonly requests: number;
  readonly errors: {
    readonly client: number;
    readonly throttled: number;
    readonly server: number;
    readonly upstream: number;
    readonly clientAborted: number;
  };
  readonly totalTokens: number;
  readonly cost: number;
  readonly averageMs: {
    readonly latency: number;
    readonly firstByte: number;
    readonly upstream: number;
    readonly overhead: number;
  };
  readonly maxMs: { readonly latency: number; readonly overhead: number };
}

interface MetricsAnswer {
  readonly since: string;
  readonly total: MetricsGroupView;
  readonly byModel: readonly MetricsGroupView[];
  readonly byAccount: readonly MetricsGroupView[];
}

const columns = (
  name: string,
  label: (row: MetricsGroupView) => string | undefined,
): readonly Column<MetricsGroupView>[] => [
  { header: name, value: label },
  { header: 'REQUESTS', value: (row) => row.requests },
  { header: '4XX', value: (row) => row.errors.client },
  { header: '429', value: (row) => row.errors.throttled },
  { header: '5XX', value: (row) => row.errors.server },
  { header: 'UPSTREAM ERR', value: (row) => row.errors.upstream },
  { header: 'TOKENS', value: (row) => row.totalTokens },
  { header: 'COST $', value: (row) => row.cost },
  { header: 'AVG MS', value: (row) => row.averageMs.latency },
  { header: 'AVG FIRST BYTE', value: (row) => row.averageMs.firstByte },
  { header: 'AVG OVERHEAD', value: (row) => row.averageMs.overhead },
  { header: 'MAX OVERHEAD', value: (row) => row.maxMs.overhead },
];

/** `gatewayctl metrics`: requests, errors, tokens, cost and times since the gateway started. */
export const metricsCommand = async (context: CommandContext): Promise<void> => {
  const answer = (await context.client.request('GET', '/admin/v1/metrics')) as MetricsAnswer;
  if (context.json) return context.print(JSON.stringify(answer, null, 2));
  context.print(`Since ${answer.since}\n`);
  context.print(
    formatTable(
      [answer.total],
      columns('TOTAL', () => 'all'),
    ),
  );
  if (answer.byModel.length > 0)
    context.print(
      `\n${formatTable(
        answer.byModel,
        columns('MODEL', (row) => row.model),
      )}`,
    );
  if (answer.byAccount.length > 0)
    context.print(
      `\n${formatTable(
        answer.byAccount,
        columns('ACCOUNT', (row) => row.accountId),
      )}`,
    );
};
