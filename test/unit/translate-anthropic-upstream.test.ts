import { createAnthropicStreamTranslator } from '../../functions/shared/providers/anthropic/anthropic-stream.js';
import { fromAnthropicResponse } from '../../functions/shared/providers/anthropic/anthropic-response.js';
import { toAnthropicRequest } from '../../functions/shared/providers/anthropic/convert-to-anthropic-messages.js';
import { UpstreamError } from '../../functions/shared/upstream/upstream-errors.js';
import type { ChatCompletionRequest } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import { readChunks } from '../support/fixtures.js';

describe('toAnthropicRequest', () => {
  const request: ChatCompletionRequest = {
    model: 'claude',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Use metric.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
        ],
      },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'user', content: 'Thanks' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ],
    tool_choice: 'required',
    stop: 'END',
    temperature: 0.5,
    max_completion_tokens: 300,
  };

  test('lifts system messages, merges same-role turns and puts tool results first in a user turn', () => {
    const body = toAnthropicRequest(request, 'claude-upstream', false);

    expect(body).toEqual({
      model: 'claude-upstream',
      max_tokens: 300,
      system: 'Be brief.\n\nUse metric.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'any' },
      stop_sequences: ['END'],
      temperature: 0.5,
    });
  });

  test('defaults max_tokens and maps a forced function and none', () => {
    const forced = toAnthropicRequest(
      {
        ...request,
        max_completion_tokens: undefined,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      },
      'm',
      true,
    );
    const none = toAnthropicRequest({ ...request, tool_choice: 'none' }, 'm', false);

    expect(forced).toMatchObject({
      max_tokens: 4096,
      tool_choice: { type: 'tool', name: 'get_weather' },
      stream: true,
    });
    expect(none.tool_choice).toEqual({ type: 'none' });
  });

  test('turns reasoning_effort into a thinking budget that fits in max_tokens, without temperature', () => {
    const body = toAnthropicRequest(
      { ...request, messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'low', max_completion_tokens: 500 },
      'm',
      false,
    );

    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(body.max_tokens).toBeGreaterThan(1024);
    expect(body).not.toHaveProperty('temperature');
  });
});

describe('fromAnthropicResponse', () => {
  test('maps text, thinking, tool use, stop reason and cached usage', () => {
    const completion = fromAnthropicResponse(
      {
        id: 'msg_1',
        type: 'message',
        model: 'claude',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 20, cache_creation_input_tokens: 3 },
      },
      1,
    );

    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: 'Let me check.',
        reasoning_content: 'hmm',
        thinking_blocks: [{ type: 'thinking', thinking: 'hmm', signature: 's' }],
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 33,
      completion_tokens: 5,
      total_tokens: 38,
      prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 3 },
    });
  });

  test.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s', (stopReason, finishReason) => {
    const completion = fromAnthropicResponse({
      id: 'm',
      type: 'message',
      content: [{ type: 'text', text: '' }],
      stop_reason: stopReason,
    });

    expect(completion.choices[0]!.finish_reason).toBe(finishReason);
  });
});

describe('the Anthropic stream translator, event by event', () => {
  test('turns a recorded thinking + text + tool_use stream into chat chunks in order', () => {
    const translate = createAnthropicStreamTranslator(1);
    const chunks: ChatCompletionChunk[] = readChunks('anthropic/tool-use-stream').flatMap((event) => translate(event));

    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    expect(deltas[0]).toEqual({ role: 'assistant', content: '' });
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe('The user wants weather.');
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe("Okay, let's check the weather.");
    const calls = deltas.flatMap((delta) => delta.tool_calls ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(calls.map((call) => call.function?.arguments ?? '').join('')).toBe(
      '{"location": "San Francisco, CA", "unit": "fahrenheit"}',
    );
    expect(calls.slice(1).map((call) => call.function?.arguments)).toEqual([
      '{"location":',
      ' "San Fra',
      'ncisco, CA"',
      ', "unit": "fahrenheit"}',
    ]);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 572,
        completion_tokens: 89,
        total_tokens: 661,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
    expect(translate.done).toBe(true);
  });

  test('throws a non-retryable upstream error on a mid-stream error event, after the text before it', () => {
    const translate = createAnthropicStreamTranslator(1);
    const events = readChunks('anthropic/overloaded-mid-stream');
    const text = events
      .slice(0, 3)
      .flatMap((event) => translate(event))
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');

    expect(text).toBe('Hello');
    expect(() => translate(events[3])).toThrow(UpstreamError);
    expect(() => translate(events[3])).toThrow(/Overloaded/);
  });
});
