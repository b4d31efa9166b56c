import { toAnthropicStopReason } from './anthropic-stop-reason.js';
import type { AnthropicResponseBlock, AnthropicStreamEvent } from './anthropic-messages-result.js';
import {
  PROMPT_USAGE,
  type ChatCompletionChunk,
  type ChatUsage,
  type FinishReason,
} from '../openai-chat/chat-completion-result.js';
import { anthropicMessageId, toAnthropicUsage } from './chat-to-anthropic-message.js';
import { readThinkingBlocks } from '../openai-chat/thinking-blocks.js';

export interface ChatToAnthropicStream {
  /** The Anthropic events one chat chunk becomes. */
  push(chunk: ChatCompletionChunk): AnthropicStreamEvent[];
  /** The closing events, once the chat stream has ended. */
  end(): AnthropicStreamEvent[];
}

type OpenBlock =
  { readonly kind: 'text' | 'thinking' | 'redacted' } | { readonly kind: 'tool'; readonly toolIndex: number };

const carriesContent = (choice: ChatCompletionChunk['choices'][number] | undefined): boolean => {
  if (!choice) return false;
  const delta = choice.delta ?? {};
  return (
    (choice.finish_reason ?? null) !== null ||
    (typeof delta.content === 'string' && delta.content !== '') ||
    (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') ||
    (delta.tool_calls?.length ?? 0) > 0 ||
    delta.thinking_blocks !== undefined
  );
};

/**
 * OpenAI chat chunks → Anthropic stream events, in Anthropic's order: message_start and a ping first,
 * one content block at a time (thinking, text, each tool call), message_delta with the stop reason
 * and usage, message_stop. `inputTokens` fills message_start until the upstream's count arrives.
 */
export const createChatToAnthropicStream = (options: {
  readonly model: string;
  readonly inputTokens?: number;
}): ChatToAnthropicStream => {
  let started = false;
  let blockCount = 0;
  let open: (OpenBlock & { readonly index: number }) | undefined;
  const toolBlocks = new Map<number, number>();
  let finishReason: FinishReason | null = null;
  let usage: ChatUsage | null = null;
  /** The upstream's input count from a chunk held back before message_start (PROMPT_USAGE). */
  let promptUsage: ChatUsage | undefined;

  const start = (id: string, upstreamUsage?: ChatUsage | null): AnthropicStreamEvent[] => {
    started = true;
    // The upstream's own count when it came before the content; the estimate otherwise, which the
    // usage in message_delta then corrects (clients take the later figures).
    const known = upstreamUsage ? toAnthropicUsage(upstreamUsage) : undefined;
    return [
      {
        type: 'message_start',
        message: {
          id: anthropicMessageId(id),
          type: 'message',
          role: 'assistant',
          model: options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: known?.input_tokens ?? options.inputTokens ?? 0,
            cache_creation_input_tokens: known?.cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: known?.cache_read_input_tokens ?? 0,
            output_tokens: 0,
          },
        },
      },
      { type: 'ping' },
    ];
  };

  const close = (): AnthropicStreamEvent[] => {
    if (!open) return [];
    const index = open.index;
    open = undefined;
    return [{ type: 'content_block_stop', index }];
  };

  const openBlock = (block: OpenBlock, contentBlock: AnthropicResponseBlock): AnthropicStreamEvent[] => {
    const events = close();
    open = { ...block, index: blockCount++ };
    events.push({ type: 'content_block_start', index: open.index, content_block: contentBlock });
    return events;
  };

  /** Signed blocks: a signature closes the open thinking block; redacted thinking is a block of its own. */
  const signedThinking = (value: unknown): AnthropicStreamEvent[] => {
    const events: AnthropicStreamEvent[] = [];
    for (const block of readThinkingBlocks(value)) {
      if (block.type === 'redacted_thinking') {
        events.push(...openBlock({ kind: 'redacted' }, { type: 'redacted_thinking', data: block.data }));
        continue;
      }
      if (open?.kind !== 'thinking')
        events.push(...openBlock({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }));
      if (block.thinking !== '')
        events.push({
          type: 'content_block_delta',
          index: open!.index,
          delta: { type: 'thinking_delta', thinking: block.thinking },
        });
      if (block.signature)
        events.push({
          type: 'content_block_delta',
          index: open!.index,
          delta: { type: 'signature_delta', signature: block.signature },
        });
    }
    return events;
  };

  return {
    push(chunk) {
      const choice = chunk.choices.find((candidate) => candidate.index === 0);
      // A chunk with nothing in it (the role alone) is held back, so that message_start can carry the
      // input count of an upstream that reports usage before the first content: in a final-style
      // usage (some OpenAI-compatible servers) or in every chunk (Gemini, PROMPT_USAGE). Nothing
      // that carries content waits.
      if (!started) promptUsage = chunk[PROMPT_USAGE] ?? promptUsage;
      if (!started && !chunk.usage && !carriesContent(choice)) return [];
      const events: AnthropicStreamEvent[] = started ? [] : start(chunk.id, chunk.usage ?? promptUsage);
      if (chunk.usage) usage = chunk.usage;
      if (!choice) return events;
      const delta = choice.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
        if (open?.kind !== 'thinking')
          events.push(...openBlock({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }));
        events.push({
          type: 'content_block_delta',
          index: open!.index,
          delta: { type: 'thinking_delta', thinking: delta.reasoning_content },
        });
      }
      events.push(...signedThinking(delta.thinking_blocks));
      if (typeof delta.content === 'string' && delta.content !== '') {
        if (open?.kind !== 'text') events.push(...openBlock({ kind: 'text' }, { type: 'text', text: '' }));
        events.push({
          type: 'content_block_delta',
          index: open!.index,
          delta: { type: 'text_delta', text: delta.content },
        });
      }
      for (const call of delta.tool_calls ?? []) {
        if (!toolBlocks.has(call.index)) {
          const id = call.id ?? `toolu_${chunk.id}_${call.index}`;
          events.push(
            ...openBlock(
              { kind: 'tool', toolIndex: call.index },
              { type: 'tool_use', id, name: call.function?.name ?? '', input: {} },
            ),
          );
          toolBlocks.set(call.index, open!.index);
        }
        const argumentsDelta = call.function?.arguments;
        if (argumentsDelta) {
          events.push({
            type: 'content_block_delta',
            index: toolBlocks.get(call.index)!,
            delta: { type: 'input_json_delta', partial_json: argumentsDelta },
          });
        }
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
      return events;
    },

    end() {
      const events: AnthropicStreamEvent[] = started ? [] : start('gateway');
      events.push(...close());
      const final = toAnthropicUsage(usage);
      events.push({
        type: 'message_delta',
        delta: { stop_reason: toAnthropicStopReason(finishReason) ?? 'end_turn', stop_sequence: null },
        usage: usage ? final : { output_tokens: 0 },
      });
      events.push({ type: 'message_stop' });
      return events;
    },
  };
};
