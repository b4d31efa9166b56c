import { anthropicMessagesRequestSchema } from '../../functions/shared/protocols/anthropic-messages/anthropic-messages-request.js';
import type { AnthropicStreamEvent } from '../../functions/shared/protocols/anthropic-messages/anthropic-messages-result.js';
import { anthropicToChatRequest } from '../../functions/shared/protocols/anthropic-messages/anthropic-to-chat-request.js';
import { chatToAnthropicMessage } from '../../functions/shared/protocols/anthropic-messages/chat-to-anthropic-message.js';
import { createChatToAnthropicStream } from '../../functions/shared/protocols/anthropic-messages/chat-to-anthropic-stream.js';
import { readChunks } from '../support/fixtures.js';

describe('anthropicToChatRequest', () => {
  test('translates system, images, tool use and tool results into OpenAI messages', () => {
    const request = anthropicMessagesRequestSchema().parse({
      model: 'm',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 's' },
            { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'done' }] },
            { type: 'text', text: 'and?' },
          ],
        },
      ],
      tools: [
        { name: 'f', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search' },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['X'],
      thinking: { type: 'enabled', budget_tokens: 4000 },
      stream: true,
    });

    expect(anthropicToChatRequest(request, { reasoning: true })).toEqual({
      model: 'm',
      max_completion_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'hm',
          thinking_blocks: [{ type: 'thinking', thinking: 'hm', signature: 's' }],
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
        { role: 'user', content: 'and?' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      stop: ['X'],
      reasoning_effort: 'medium',
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe('chatToAnthropicMessage', () => {
  test('maps tool calls to tool_use blocks with parsed input and usage with cached tokens apart', () => {
    const message = chatToAnthropicMessage(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'x',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            },
          },
        ],
        usage: {
          prompt_tokens: 30,
          completion_tokens: 5,
          total_tokens: 35,
          prompt_tokens_details: { cached_tokens: 10 },
        },
      },
      'public-model',
    );

    expect(message).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'public-model',
      content: [{ type: 'tool_use', id: 'c1', name: 'f', input: { a: 1 } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    });
  });
});

describe('the chat → Anthropic stream translator, chunk by chunk', () => {
  test('emits Anthropic events in order for text then two tool calls split across chunks', () => {
    const translator = createChatToAnthropicStream({ model: 'public', inputTokens: 12 });
    const events: AnthropicStreamEvent[] = [
      ...readChunks('openai/tool-call-stream').flatMap((chunk) => translator.push(chunk)),
      ...translator.end(),
    ];

    expect(events.map((event) => event.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]).toMatchObject({
      message: { id: 'msg_abc', model: 'public', usage: { input_tokens: 12, output_tokens: 0 } },
    });
    expect(events[5]).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} },
    });
    const json = events
      .filter((event) => event.type === 'content_block_delta' && event.index === 1)
      .map((event) =>
        event.type === 'content_block_delta' && event.delta.type === 'input_json_delta' ? event.delta.partial_json : '',
      )
      .join('');
    expect(JSON.parse(json)).toEqual({ city: 'Paris' });
    expect(events[13]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 40, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    });
  });

  test('opens a thinking block for reasoning_content before the text block', () => {
    const translator = createChatToAnthropicStream({ model: 'm' });
    const base = { id: 'chatcmpl-x', object: 'chat.completion.chunk' as const, created: 1, model: 'u' };
    const events = [
      ...translator.push({
        ...base,
        choices: [{ index: 0, delta: { reasoning_content: 'think' }, finish_reason: null }],
      }),
      ...translator.push({ ...base, choices: [{ index: 0, delta: { content: 'answer' }, finish_reason: 'stop' }] }),
      ...translator.end(),
    ];

    expect(
      events
        .filter((event) => event.type === 'content_block_start')
        .map((event) => event.type === 'content_block_start' && event.content_block.type),
    ).toEqual(['thinking', 'text']);
    expect(events.find((event) => event.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'end_turn' },
    });
  });
});
