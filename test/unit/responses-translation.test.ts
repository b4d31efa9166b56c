import { readFileSync } from 'node:fs';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import type { ResponsesRequest } from '../../functions/shared/protocols/openai-responses/responses-request.js';
import type { ResponseStreamEvent } from '../../functions/shared/protocols/openai-responses/responses-result.js';
import {
  fromChatCompletion,
  responsesEventsFromChat,
  type ResponseContext,
} from '../../functions/shared/protocols/openai-responses/responses-from-chat.js';
import { toChatRequest } from '../../functions/shared/protocols/openai-responses/responses-to-chat-request.js';

const fixture = (name: string): ChatCompletionChunk[] =>
  readFileSync(new URL(`../fixtures/responses/${name}.chunks.txt`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as ChatCompletionChunk);

async function* replay<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

const context = (request: Partial<ResponsesRequest> = {}): ResponseContext => ({
  id: 'resp_test',
  createdAt: 1_700_000_000,
  model: 'public-model',
  request: { model: 'public-model', input: 'hi', ...request } as ResponsesRequest,
});

const translate = async (name: string): Promise<ResponseStreamEvent[]> => {
  const events: ResponseStreamEvent[] = [];
  for await (const event of responsesEventsFromChat(replay(fixture(name)), context())) events.push(event);
  return events;
};

/** What the official SDK builds from the events: it rejects any event inconsistent with the ones before. */
const sdkSnapshot = (events: readonly ResponseStreamEvent[]) => {
  let snapshot: any;
  for (const event of events) snapshot = accumulateResponse(event as never, snapshot);
  return snapshot;
};

describe('chat stream → Responses events', () => {
  it('numbers events in order and brackets them with created/in_progress and completed', async () => {
    const events = await translate('chat-reasoning-text');

    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]).toMatchObject({
      type: 'response.created',
      response: { id: 'resp_test', status: 'in_progress', model: 'public-model', output: [] },
    });
    expect(events[1]!.type).toBe('response.in_progress');
    expect(events.at(-1)!.type).toBe('response.completed');
  });

  it('turns reasoning_content into a reasoning item before the message, with usage details', async () => {
    const events = await translate('chat-reasoning-text');

    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const completed = events.at(-1)!.response as any;
    expect(completed.output).toEqual([
      {
        type: 'reasoning',
        id: 'rs_test',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'The user greets. Answer kindly.' }],
        status: 'completed',
      },
      {
        type: 'message',
        id: 'msg_test',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello there!', annotations: [], logprobs: [] }],
      },
    ]);
    expect(completed.usage).toEqual({
      input_tokens: 10,
      output_tokens: 9,
      total_tokens: 19,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 5 },
    });
  });

  it('produces events the official SDK accumulates into the same final response', async () => {
    const events = await translate('chat-reasoning-text');

    const snapshot = sdkSnapshot(events);
    expect(snapshot.status).toBe('completed');
    expect(snapshot.output[1].content[0].text).toBe('Hello there!');
  });

  it('turns parallel tool calls into function_call items with argument deltas', async () => {
    const events = await translate('chat-parallel-tools');

    const deltas = events.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(deltas.map((event) => [event.output_index, event.delta])).toEqual([
      [0, '{"city":'],
      [0, '"Paris"}'],
      [1, '{"tz":"CET"}'],
    ]);
    const done = events.filter((event) => event.type === 'response.function_call_arguments.done');
    expect(done.map((event) => [event.item_id, event.name, event.arguments])).toEqual([
      ['fc_test_0', 'get_weather', '{"city":"Paris"}'],
      ['fc_test_1', 'get_time', '{"tz":"CET"}'],
    ]);
    const snapshot = sdkSnapshot(events);
    expect(snapshot.output).toMatchObject([
      {
        type: 'function_call',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
      { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{"tz":"CET"}', status: 'completed' },
    ]);
  });

  it('ends a stream cut by the token limit as response.incomplete', async () => {
    const events = await translate('chat-length-cut');

    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    expect(sdkSnapshot(events).output[0].content[0].text).toBe('One two');
  });
});

describe('chat completion → Response', () => {
  it('maps text, tool calls and usage', () => {
    const response = fromChatCompletion(
      {
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 1,
        model: 'upstream',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: 'Checking.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
      context({ instructions: 'sys', temperature: 0.2 }),
    );

    expect(response).toMatchObject({
      id: 'resp_test',
      object: 'response',
      status: 'completed',
      model: 'public-model',
      instructions: 'sys',
      temperature: 0.2,
      output: [
        {
          type: 'message',
          id: 'msg_test',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_test_0', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      ],
      usage: {
        input_tokens: 3,
        output_tokens: 4,
        total_tokens: 7,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });
});

describe('Responses request → chat request', () => {
  it('maps instructions, message parts, function calls and their outputs, tools and settings', () => {
    const chat = toChatRequest({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look:' },
            { type: 'input_image', image_url: 'https://x/cat.png', detail: 'low' },
          ],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A cat.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call', call_id: 'call_2', name: 'g', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'one' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'two' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
      ],
      tools: [{ type: 'function', name: 'f', description: 'F', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 64,
      temperature: 0.3,
      top_p: 0.9,
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    } as ResponsesRequest);

    expect(chat).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: 'A cat.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { id: 'call_2', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'one' },
        { role: 'tool', tool_call_id: 'call_2', content: 'two' },
      ],
      tools: [
        { type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' }, strict: true } },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
      max_tokens: 64,
      temperature: 0.3,
      top_p: 0.9,
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
    });
  });

  it('rejects what chat cannot express with a 400 naming the field', () => {
    expect(() =>
      toChatRequest({
        model: 'm',
        input: 'x',
        tools: [{ type: 'file_search' }],
        tool_choice: { type: 'file_search' },
      } as ResponsesRequest),
    ).toThrow(expect.objectContaining({ status: 400, param: 'tool_choice' }));
    expect(() =>
      toChatRequest({ model: 'm', input: [{ type: 'item_reference', id: 'x' }] } as ResponsesRequest),
    ).toThrow(expect.objectContaining({ param: 'input[0].type' }));
    expect(() =>
      toChatRequest({
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }],
      } as ResponsesRequest),
    ).toThrow(expect.objectContaining({ param: 'input[0].content[0].image_url' }));
    expect(() => toChatRequest({ model: 'm' } as ResponsesRequest)).toThrow(
      expect.objectContaining({ param: 'input' }),
    );
  });

  // JSON can hold an object whose `toString` is no function: String() of it throws.
  const notText = { toString: [] };
  it.each([
    [{ type: 'function_call', call_id: notText, name: 'f', arguments: '{}' }, 'input[0].call_id'],
    [{ type: 'function_call', call_id: 'c', name: 'f', arguments: notText }, 'input[0].arguments'],
    [{ type: 'custom_tool_call', call_id: 'c', name: 'f', input: notText }, 'input[0].input'],
    [{ role: 'user', content: [{ type: 'input_text', text: notText }] }, 'input[0].content[0].text'],
    [{ role: 'assistant', content: [{ type: 'refusal', refusal: 5 }] }, 'input[0].content[0].refusal'],
  ])('answers a member that must be text and is not (%j) with a 400 naming it', (item, param) => {
    expect(() => toChatRequest({ model: 'm', input: [item] } as unknown as ResponsesRequest)).toThrow(
      expect.objectContaining({ status: 400, param }),
    );
  });

  it('quotes a type that is not text as JSON in its 400', () => {
    expect(() =>
      toChatRequest({ model: 'm', input: [{ type: { toString: [] } }] } as unknown as ResponsesRequest),
    ).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('{"toString":[]}') }));
  });
});
