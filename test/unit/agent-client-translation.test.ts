import { reasonsByDefault } from '../../functions/shared/providers/model-reasoning.js';
import { usageCost } from '../../functions/shared/accounting/pricing.js';
import { anthropicClientOptions } from '../../functions/shared/protocols/anthropic-messages/anthropic-client-options.js';
import { anthropicMessagesRequestSchema } from '../../functions/shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { anthropicToChatRequest } from '../../functions/shared/protocols/anthropic-messages/anthropic-to-chat-request.js';
import { chatToAnthropicMessage } from '../../functions/shared/protocols/anthropic-messages/chat-to-anthropic-message.js';
import { createChatToAnthropicStream } from '../../functions/shared/protocols/anthropic-messages/chat-to-anthropic-stream.js';
import type { ChatCompletionRequest } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import { toOpenAIWireRequest } from '../../functions/shared/protocols/openai-chat/openai-wire-request.js';
import { anthropicChannelBetas } from '../../functions/shared/providers/anthropic/anthropic-betas.js';
import { anthropicHeaders } from '../../functions/shared/providers/anthropic/anthropic-provider.js';
import { toAnthropicRequest } from '../../functions/shared/providers/anthropic/convert-to-anthropic-messages.js';
import { withVerifiableThinking } from '../../functions/shared/providers/anthropic/verifiable-thinking.js';
import { bedrockChannelBetas } from '../../functions/shared/providers/bedrock/bedrock-betas.js';
import { toBedrockConverseInput } from '../../functions/shared/providers/bedrock/convert-to-bedrock-converse.js';

const messagesRequest = (fields: Record<string, unknown>) =>
  anthropicMessagesRequestSchema().parse({
    model: 'm',
    max_tokens: 1000,
    messages: [{ role: 'user', content: 'Hi' }],
    ...fields,
  });

const chunk = (delta: Record<string, unknown>, extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe('client betas and version', () => {
  test('are read from every anthropic-beta value, deduplicated, with malformed names dropped', () => {
    const options = anthropicClientOptions(
      { 'anthropic-version': '2023-06-01' },
      {
        'Anthropic-Beta': ['interleaved-thinking-2025-05-14, context-management-2025-06-27', 'x\r\ninjected: 1'],
        'anthropic-beta': ['interleaved-thinking-2025-05-14'],
      },
    );

    expect(options).toEqual({
      betas: ['interleaved-thinking-2025-05-14', 'context-management-2025-06-27'],
      version: '2023-06-01',
    });
  });

  test('a version that is not a date is not forwarded', () => {
    expect(anthropicClientOptions({ 'anthropic-version': 'latest\r\nx: y' })).toEqual({ betas: [] });
  });

  test('an anthropic channel gets the client version, ours when the client pinned none, and the betas', () => {
    const channel = { apiKey: 'sk-ant-upstream' } as Parameters<typeof anthropicHeaders>[0];

    expect(anthropicHeaders(channel)['anthropic-version']).toBe('2023-06-01');
    expect(anthropicHeaders(channel, { betas: ['effort-2025-11-24'], version: '2026-10-21' })).toMatchObject({
      'anthropic-version': '2026-10-21',
      'anthropic-beta': 'effort-2025-11-24',
    });
    expect(anthropicHeaders(channel)).not.toHaveProperty('anthropic-beta');
  });

  test('anthropic channels forward every beta but the client sign-in ones', () => {
    expect(anthropicChannelBetas(['oauth-2025-04-20', 'effort-2025-11-24'])).toEqual(['effort-2025-11-24']);
  });

  test('bedrock channels forward only the betas Bedrock accepts, under Bedrock names', () => {
    expect(
      bedrockChannelBetas([
        'claude-code-20250219',
        'interleaved-thinking-2025-05-14',
        'advanced-tool-use-2025-11-20',
        'tool-search-tool-2025-10-19',
      ]),
    ).toEqual(['interleaved-thinking-2025-05-14', 'tool-search-tool-2025-10-19']);
  });

  test('bedrock sends betas only to Claude models, in the model fields', () => {
    const request: ChatCompletionRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
    const options = { betas: ['context-1m-2025-08-07'] };

    expect(toBedrockConverseInput(request, 'us.anthropic.claude-sonnet-4-v1:0', options)).toMatchObject({
      additionalModelRequestFields: { anthropic_beta: ['context-1m-2025-08-07'] },
    });
    expect(toBedrockConverseInput(request, 'amazon.nova-pro-v1:0', options)).not.toHaveProperty(
      'additionalModelRequestFields',
    );
  });
});

describe('the reasoning capability', () => {
  test.each([
    ['o3', true],
    ['openai/o4-mini', true],
    ['gpt-5', true],
    ['gpt-5-chat-latest', false],
    ['gpt-4.1', false],
    ['gpt-4o-mini', false],
    ['claude-sonnet-4-5', true],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', true],
    ['claude-3-5-haiku-latest', false],
    ['gemini-2.5-flash', true],
    ['models/gemini-2.0-flash', false],
    ['deepseek-reasoner', true],
    ['deepseek-chat', false],
  ])('%s reasons by default: %s', (id, expected) => {
    expect(reasonsByDefault(id)).toBe(expected);
  });

  test('a reasoning model gets max_completion_tokens and an effort from Claude thinking', () => {
    const chat = anthropicToChatRequest(messagesRequest({ thinking: { type: 'enabled', budget_tokens: 1024 } }), {
      reasoning: true,
    });

    expect(chat).toMatchObject({ max_completion_tokens: 1000, reasoning_effort: 'low' });
    expect(chat).not.toHaveProperty('max_tokens');
  });

  test('a model that does not reason gets max_tokens and no effort', () => {
    const chat = anthropicToChatRequest(messagesRequest({ thinking: { type: 'enabled', budget_tokens: 1024 } }));

    expect(chat).toMatchObject({ max_tokens: 1000 });
    expect(chat).not.toHaveProperty('reasoning_effort');
  });

  test('adaptive thinking takes the effort the client named', () => {
    const chat = anthropicToChatRequest(
      messagesRequest({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }),
      { reasoning: true },
    );

    expect(chat.reasoning_effort).toBe('high');
  });

  test('bedrock asks Claude to think, within the output limit and without sampling settings', () => {
    const input = toBedrockConverseInput(
      {
        model: 'm',
        messages: [{ role: 'user', content: 'Hi' }],
        reasoning_effort: 'medium',
        temperature: 0.2,
        max_tokens: 100,
      },
      'anthropic.claude-sonnet-4-v1:0',
      { reasoning: true },
    );
    const plain = toBedrockConverseInput(
      { model: 'm', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'medium' },
      'anthropic.claude-3-5-haiku-v1:0',
      { reasoning: false },
    );

    expect(input.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 4096 } });
    expect(input.inferenceConfig).toEqual({ maxTokens: 4096 + 4096 });
    expect(plain).not.toHaveProperty('additionalModelRequestFields');
  });

  test('the anthropic adapter asks no thinking of a model that does not reason', () => {
    const body = toAnthropicRequest(
      { model: 'm', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'high' },
      'claude-3-5-haiku',
      false,
      { reasoning: false },
    );

    expect(body).not.toHaveProperty('thinking');
  });

  test('the anthropic adapter asks no thinking to continue a tool loop whose turn holds no signed thinking', () => {
    const body = toAnthropicRequest(
      {
        model: 'm',
        reasoning_effort: 'high',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
      },
      'claude',
      false,
      { reasoning: true },
    );

    expect(body).not.toHaveProperty('thinking');
  });
});

describe('structured output', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };

  test('Anthropic output_config.format becomes a strict json_schema response_format', () => {
    const chat = anthropicToChatRequest(
      messagesRequest({ output_config: { format: { type: 'json_schema', schema } } }),
    );

    expect(chat.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });

  test('the beta output_format is read too', () => {
    const chat = anthropicToChatRequest(messagesRequest({ output_format: { type: 'json_schema', schema } }));

    expect(chat.response_format?.type).toBe('json_schema');
  });

  test('a json_schema response_format becomes output_config.format; JSON mode an instruction', () => {
    const base: ChatCompletionRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    };
    const withSchema = toAnthropicRequest(
      { ...base, response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } },
      'claude',
      false,
    );
    const jsonMode = toAnthropicRequest({ ...base, response_format: { type: 'json_object' } }, 'claude', false);

    expect(withSchema.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(jsonMode).not.toHaveProperty('output_config');
    expect(jsonMode.system).toMatch(/^Be brief\.\n\nRespond with a single valid JSON object/);
  });
});

describe('signed thinking through the chat form', () => {
  const signedTurn = messagesRequest({
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'b3BhcXVl' },
          { type: 'tool_use', id: 'toolu_1', name: 'w', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
    tools: [{ name: 'w', input_schema: { type: 'object' } }],
  });

  test('reach an anthropic channel again exactly, before the tool call', () => {
    const body = toAnthropicRequest(anthropicToChatRequest(signedTurn), 'claude', false) as { messages: any[] };

    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'b3BhcXVl' },
      { type: 'tool_use', id: 'toolu_1', name: 'w', input: {} },
    ]);
  });

  test('reach a bedrock channel as reasoning blocks', () => {
    const input = toBedrockConverseInput(anthropicToChatRequest(signedTurn), 'anthropic.claude-v1:0');

    expect(input.messages![1]!.content!.slice(0, 2)).toEqual([
      { reasoningContent: { reasoningText: { text: 'Look it up.', signature: 'sig-1' } } },
      { reasoningContent: { redactedContent: Buffer.from('opaque') } },
    ]);
  });

  test('are taken out for an OpenAI-compatible server, which refuses unknown message fields', () => {
    const wire = toOpenAIWireRequest(anthropicToChatRequest(signedTurn));

    expect(wire.messages[1]).not.toHaveProperty('thinking_blocks');
    expect(wire.messages[1]).toHaveProperty('reasoning_content', 'Look it up.');
  });

  test('a chat answer with signed blocks becomes the same Anthropic blocks', () => {
    const message = chatToAnthropicMessage(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Done.',
              reasoning_content: 'Think.',
              thinking_blocks: [{ type: 'thinking', thinking: 'Think.', signature: 'sig-2' }],
            },
            finish_reason: 'stop',
          },
        ],
      },
      'm',
    );

    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Think.', signature: 'sig-2' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  test('unsigned thinking is left out before Anthropic, and thinking turned off when the tool loop lacks it', () => {
    const request = messagesRequest({
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'From another vendor.', signature: '' },
            { type: 'tool_use', id: 'toolu_1', name: 'w', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    const verifiable = withVerifiableThinking(request);

    expect(verifiable.messages[1]!.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'w', input: {} }]);
    expect(verifiable).not.toHaveProperty('thinking');
  });

  test('a conversation with only signed thinking is sent as it was', () => {
    expect(withVerifiableThinking(signedTurn)).toBe(signedTurn);
  });
});

describe('translated Messages streams', () => {
  test('message_start carries the input count of an upstream that reports it before the content', () => {
    const stream = createChatToAnthropicStream({ model: 'm', inputTokens: 999 });
    const held = stream.push(chunk({ role: 'assistant', content: '' }));
    const started = stream.push(
      chunk(
        {},
        {
          choices: [],
          usage: {
            prompt_tokens: 40,
            completion_tokens: 0,
            total_tokens: 40,
            prompt_tokens_details: { cached_tokens: 10 },
          },
        },
      ),
    );

    expect(held).toEqual([]);
    expect(started[0]).toMatchObject({
      type: 'message_start',
      message: { usage: { input_tokens: 30, cache_read_input_tokens: 10, output_tokens: 0 } },
    });
  });

  test('without an early count, message_start has the estimate and message_delta the real figures', () => {
    const stream = createChatToAnthropicStream({ model: 'm', inputTokens: 12 });
    const events = [
      ...stream.push(chunk({ role: 'assistant', content: 'Hi' })),
      ...stream.push(chunk({}, { choices: [], usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } })),
      ...stream.end(),
    ];

    expect(events[0]).toMatchObject({ type: 'message_start', message: { usage: { input_tokens: 12 } } });
    expect(events.find((event) => event.type === 'message_delta')).toMatchObject({
      usage: { input_tokens: 20, output_tokens: 3 },
    });
  });

  test('signatures and redacted thinking reach the client as Anthropic events', () => {
    const stream = createChatToAnthropicStream({ model: 'm' });
    const events = [
      ...stream.push(chunk({ reasoning_content: 'Hmm.' })),
      ...stream.push(chunk({ thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'sig-3' }] })),
      ...stream.push(chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: 'b3BhcXVl' }] })),
      ...stream.push(chunk({ content: 'Done.' })),
      ...stream.end(),
    ];

    expect(
      events.filter((event) => event.type === 'content_block_start' || event.type === 'content_block_delta'),
    ).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-3' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'b3BhcXVl' } },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Done.' } },
    ]);
  });
});

describe('prompt caching', () => {
  test('cache marks reach Anthropic on system, parts and tools', () => {
    const chat = anthropicToChatRequest(
      messagesRequest({
        system: [{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        ],
        tools: [{ name: 'w', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
      }),
    );
    const body = toAnthropicRequest(chat, 'claude', false) as Record<string, any>;

    expect(body.system).toEqual([{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }]);
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(body.tools[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(toOpenAIWireRequest(chat).tools?.[0]).not.toHaveProperty('cache_control');
  });

  test('cache marks become Bedrock cache points after what they mark', () => {
    const chat = anthropicToChatRequest(
      messagesRequest({
        system: [{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      }),
    );
    const input = toBedrockConverseInput(chat, 'anthropic.claude-v1:0');

    expect(input.system).toEqual([{ text: 'Sys' }, { cachePoint: { type: 'default' } }]);
    expect(input.messages![0]!.content).toEqual([{ text: 'Hi' }, { cachePoint: { type: 'default' } }]);
  });

  test('cache writes cost 1.25 × input unless the model sets a price; reads their own price', () => {
    const usage = { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 200_000, cacheWriteTokens: 400_000 };

    // 400k plain at 2, 200k read at 0.2, 400k written at 2.5.
    expect(usageCost({ inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.2 }, usage)).toBeCloseTo(
      0.8 + 0.04 + 1.0,
      10,
    );
    expect(
      usageCost({ inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.2, cacheWritePerMTok: 3 }, usage),
    ).toBeCloseTo(0.8 + 0.04 + 1.2, 10);
  });
});
