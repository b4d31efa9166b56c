import type { AdminClient } from '../../cli/admin-client.js';
import type { CommandContext, Options } from '../../cli/commands.js';
import { listModelsCommand, modelLines } from '../../cli/models-command.js';
import { usageCommand } from '../../cli/usage-command.js';

/** A usage answer in the shape of the admin API's contract, as a client that records what it was asked. */
const answering = (answer: unknown) => {
  const asked: string[] = [];
  const client: AdminClient = {
    request: async (method, path) => {
      asked.push(`${method} ${path}`);
      return answer;
    },
  };
  return { client, asked };
};

const run = async (answer: unknown, options: Options, json = false) => {
  const { client, asked } = answering(answer);
  const printed: string[] = [];
  const context: CommandContext = { client, options, args: [], json, print: (text) => printed.push(text) };
  await usageCommand(context);
  return { asked, output: printed.join('\n') };
};

const totals = { requests: 3, promptTokens: 30, completionTokens: 12, totalTokens: 42, cost: 0.0005 };
const record = {
  time: '2026-01-02T03:04:05.000Z',
  accountId: 'acct_a',
  keyId: 'key_a',
  model: 'gpt-x',
  endpoint: 'chat',
  status: 'success',
  promptTokens: 10,
  completionTokens: 4,
  totalTokens: 14,
  cost: 0.0002,
  latencyMs: 120,
  overheadMs: 0.8,
};

describe('gatewayctl usage', () => {
  test('asks for every filter by its API name and prints records, totals over the query and the next cursor', async () => {
    const { asked, output } = await run(
      { data: [record], totals, nextCursor: 'abc123' },
      {
        account: 'acct_a',
        'key-id': 'key_a',
        model: 'gpt-x',
        from: '2026-01-01T00:00:00Z',
        to: '2026-02-01T00:00:00Z',
        limit: '1',
        cursor: 'prev',
      },
    );
    expect(asked).toEqual([
      'GET /admin/v1/usage?accountId=acct_a&keyId=key_a&model=gpt-x&from=2026-01-01T00%3A00%3A00Z&to=2026-02-01T00%3A00%3A00Z&limit=1&cursor=prev',
    ]);
    expect(output.split('\n')[0]).toMatch(/^TIME\s+ACCOUNT\s+KEY\s+MODEL/);
    expect(output).toContain('gpt-x');
    expect(output).toContain('3 requests, 30 prompt + 12 completion = 42 tokens, $0.0005');
    expect(output).toContain('--cursor abc123');
  });

  test('prints the groups as a summary table with --group-by', async () => {
    const groups = [
      { model: 'gpt-x', requests: 2, promptTokens: 20, completionTokens: 8, totalTokens: 28, cost: 0.0003 },
      { model: 'gpt-y', requests: 1, promptTokens: 10, completionTokens: 4, totalTokens: 14, cost: 0.0002 },
    ];
    const { asked, output } = await run({ data: [record], totals, groups }, { 'group-by': 'model' });
    expect(asked).toEqual(['GET /admin/v1/usage?groupBy=model']);
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^MODEL\s+REQUESTS\s+PROMPT\s+COMPLETION\s+TOTAL\s+COST \$$/);
    expect(lines[1]).toMatch(/^gpt-x\s+2\s+20\s+8\s+28\s+0\.0003$/);
    expect(output).not.toContain('More records');
  });

  test('prints the answer untouched with --json', async () => {
    const answer = { data: [record], totals, nextCursor: 'n' };
    expect(JSON.parse((await run(answer, {}, true)).output)).toEqual(answer);
  });

  test('refuses an unknown grouping before asking the gateway', async () => {
    await expect(run({}, { 'group-by': 'week' })).rejects.toThrow(/--group-by expects one of model, account, key, day/);
  });
});

describe('gatewayctl models list', () => {
  const channel = (id: string, type: string, models: string[], enabled = true) => ({ id, type, models, enabled });

  test('joins served models with their settings, and settings without a channel', () => {
    const lines = modelLines(
      [channel('openai', 'openai', ['gpt-x', 'gpt-y']), channel('backup', 'openai', ['gpt-x'], false)],
      [{ id: 'gpt-x', pricing: { inputPerMTok: 1, outputPerMTok: 2 }, aliases: ['latest'] }, { id: 'priced-only' }],
    );
    expect(lines.map((line) => [line.id, line.channels])).toEqual([
      ['gpt-x', ['openai', 'backup (disabled)']],
      ['gpt-y', ['openai']],
      ['priced-only', []],
    ]);
    expect(lines[0]!.settings?.pricing).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
  });

  test('shows each price with where it comes from', async () => {
    const printed: string[] = [];
    const answers: Record<string, unknown> = {
      '/admin/v1/channels': { data: [channel('anthropic', 'anthropic', ['claude-x', 'house'])] },
      '/admin/v1/models': {
        data: [
          { id: 'claude-x', pricing: { inputPerMTok: 3, outputPerMTok: 15 }, pricingSource: 'catalog' },
          { id: 'house', pricing: null, pricingSource: 'none' },
        ],
      },
    };
    await listModelsCommand({
      client: { request: async (_method: string, path: string) => answers[path] },
      json: false,
      print: (text: string) => printed.push(text),
    } as unknown as CommandContext);
    const [header, claude, house] = printed.join('\n').split('\n');
    expect(header).toContain('PRICE FROM');
    expect(claude).toMatch(/claude-x\s+anthropic\s+3\s+15\s+.*catalog/);
    expect(house).toMatch(/house\s+anthropic\s+.*none/);
  });

  test('marks the built-in demo channel as not serving once another channel exists', () => {
    expect(modelLines([channel('demo', 'demo', ['demo-1'])], [])[0]!.channels).toEqual(['demo']);
    expect(
      modelLines([channel('demo', 'demo', ['demo-1']), channel('real', 'openai', ['gpt-x'])], [])[0]!.channels,
    ).toEqual(['demo (built-in, not serving)']);
  });
});
