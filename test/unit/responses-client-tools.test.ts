import { readFileSync } from 'node:fs';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import {
  fromChatCompletion,
  responsesEventsFromChat,
  type ResponseContext,
} from '../../functions/shared/protocols/openai-responses/responses-from-chat.js';
import type { ResponsesRequest } from '../../functions/shared/protocols/openai-responses/responses-request.js';
import type { ResponseStreamEvent } from '../../functions/shared/protocols/openai-responses/responses-result.js';
import { toChatRequest } from '../../functions/shared/protocols/openai-responses/responses-to-chat-request.js';
import { planTools } from '../../functions/shared/protocols/openai-responses/responses-tool-plan.js';

const codexRequest = (name: string): ResponsesRequest =>
  JSON.parse(
    readFileSync(new URL(`../conformance/fixtures/codex/${name}.request.json`, import.meta.url), 'utf8'),
  ) as ResponsesRequest;

const context = (request: ResponsesRequest): ResponseContext => ({
  id: 'resp_codex',
  createdAt: 1_700_000_000,
  model: 'public-model',
  request,
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk =>
  ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'upstream',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatCompletionChunk;

const callDelta = (index: number, fields: { id?: string; name?: string; arguments: string }) =>
  chunk({
    tool_calls: [
      {
        index,
        ...(fields.id ? { id: fields.id, type: 'function' } : {}),
        function: { ...(fields.name ? { name: fields.name } : {}), arguments: fields.arguments },
      },
    ],
  });

async function* replay<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

const collect = async (request: ResponsesRequest, chunks: ChatCompletionChunk[]) => {
  const events: ResponseStreamEvent[] = [];
  for await (const event of responsesEventsFromChat(replay(chunks), context(request))) events.push(event);
  return events;
};

describe("Codex's tools on a chat-only channel", () => {
  const chat = toChatRequest(codexRequest('replayed-tools'));
  const functionNamed = (name: string) => chat.tools?.find((tool) => tool.function.name === name)?.function;

  it('offers each client-run tool as one function and leaves hosted tools out', () => {
    expect(chat.tools?.map((tool) => tool.function.name)).toEqual([
      'exec_command',
      'apply_patch',
      'mcp__docs__search',
      'tool_search',
      'mcp__github__get_issue',
    ]);
    expect(JSON.stringify(chat.tools)).not.toContain('web_search');
  });

  it('gives a custom tool one string argument and its grammar in the description', () => {
    const patch = functionNamed('apply_patch');

    expect(patch?.parameters).toMatchObject({ required: ['input'], properties: { input: { type: 'string' } } });
    expect(patch?.description).toContain('lark grammar');
    expect(patch?.description).toContain('*** Begin Patch');
  });

  it('keeps the schema of client tool search and of namespaced functions', () => {
    expect(functionNamed('tool_search')?.parameters).toMatchObject({ required: ['query'] });
    expect(functionNamed('mcp__docs__search')).toMatchObject({ description: 'Search the project documentation' });
  });

  it('replays every kind of call and output as chat tool calls and tool messages, in order', () => {
    const calls = chat.messages.flatMap((message) => message.tool_calls ?? []);
    const outputs = chat.messages.filter((message) => message.role === 'tool');

    expect(calls.map((call) => [call.id, call.function.name])).toEqual([
      ['call_exec_1', 'exec_command'],
      ['call_search_1', 'tool_search'],
      ['call_issue_1', 'mcp__github__get_issue'],
      ['call_patch_1', 'apply_patch'],
    ]);
    expect(JSON.parse(calls[1]!.function.arguments)).toEqual({ query: 'github issues', limit: 4 });
    expect(JSON.parse(calls[3]!.function.arguments)).toEqual({
      input: '*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, world\n*** End Patch\n',
    });
    expect(outputs.map((message) => message.tool_call_id)).toEqual([
      'call_exec_1',
      'call_search_1',
      'call_issue_1',
      'call_patch_1',
    ]);
    expect(JSON.parse(String(outputs[1]!.content))).toEqual({ loaded_tools: ['mcp__github__get_issue'] });
  });

  it('drops encrypted reasoning, hosted calls and OpenAI-only settings', () => {
    const text = JSON.stringify(chat);

    expect(text).not.toContain('encrypted');
    expect(text).not.toContain('greeting conventions');
    expect(chat).not.toHaveProperty('include');
    expect(chat).not.toHaveProperty('prompt_cache_key');
    expect(chat).not.toHaveProperty('store');
  });
});

describe('chat tool calls back as the items of the tools Codex declared', () => {
  const request = codexRequest('replayed-tools');

  it('answers a whole completion with custom, namespaced and tool-search items', () => {
    const response = fromChatCompletion(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'upstream',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'c1',
                  type: 'function',
                  function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch\\n"}' },
                },
                { id: 'c2', type: 'function', function: { name: 'mcp__docs__search', arguments: '{"query":"x"}' } },
                { id: 'c3', type: 'function', function: { name: 'tool_search', arguments: '{"query":"jira"}' } },
              ],
            },
          },
        ],
      },
      context(request),
    );

    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: 'c1',
        name: 'apply_patch',
        input: '*** Begin Patch\n',
      }),
      expect.objectContaining({
        type: 'function_call',
        call_id: 'c2',
        name: 'search',
        namespace: 'mcp__docs',
        arguments: '{"query":"x"}',
      }),
      expect.objectContaining({
        type: 'tool_search_call',
        call_id: 'c3',
        execution: 'client',
        arguments: { query: 'jira' },
      }),
    ]);
  });

  it('streams a custom tool call whose input the official SDK accumulates whole', async () => {
    const events = await collect(request, [
      chunk({ role: 'assistant', content: null }),
      callDelta(0, { id: 'c1', name: 'apply_patch', arguments: '' }),
      callDelta(0, { arguments: '{"input":"*** Begin' }),
      callDelta(0, { arguments: ' Patch\\n*** End Patch\\n"}' }),
      callDelta(1, { id: 'c2', name: 'mcp__github__get_issue', arguments: '{"number":' }),
      callDelta(1, { arguments: '7}' }),
      chunk({}, 'tool_calls'),
    ]);

    let snapshot: { output: unknown[] } | undefined;
    for (const event of events) snapshot = accumulateResponse(event as never, snapshot as never) as never;
    expect(events.map((event) => event.type)).toContain('response.custom_tool_call_input.done');
    expect(snapshot?.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: 'c1',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** End Patch\n',
        status: 'completed',
      }),
      expect.objectContaining({
        type: 'function_call',
        call_id: 'c2',
        name: 'get_issue',
        namespace: 'mcp__github',
        arguments: '{"number":7}',
      }),
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output: [{ type: 'custom_tool_call' }, { type: 'function_call' }] },
    });
  });
});

describe('function names every channel accepts', () => {
  it('shortens long or unsafe names and still maps each back to its own tool', () => {
    const longNamespace = `mcp__${'very_long_server_name_'.repeat(4)}`;
    const plan = planTools({
      tools: [
        {
          type: 'namespace',
          name: longNamespace,
          description: '',
          tools: [
            { type: 'function', name: 'read.file' },
            { type: 'function', name: 'read_file' },
          ],
        },
      ] as ResponsesRequest['tools'],
    });

    const names = plan.tools.map((tool) => tool.function.name);
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names.map((name) => plan.origins.get(name))).toEqual([
      { kind: 'function', name: 'read.file', namespace: longNamespace },
      { kind: 'function', name: 'read_file', namespace: longNamespace },
    ]);
  });
});
