import { UpstreamError } from '../../upstream/upstream-errors.js';
import type { ChatCompletionChunk, FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';
import type { AnthropicWireStreamEvent, AnthropicWireUsage } from './anthropic-api.js';
import { toChatUsage } from './anthropic-usage.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';

/** A mid-stream `error` event: the stream has begun, so no other channel may take over. */
export const anthropicStreamError = (error: { type?: string | null; message?: string | null }) =>
  new UpstreamError(`The upstream provider failed mid-stream: ${error.message ?? error.type ?? 'unknown error'}`, {
    status: error.type === 'overloaded_error' ? 503 : 502,
    code: 'upstream_error',
    retryable: false,
  });

export interface AnthropicStreamTranslator {
  /** The chat chunks one Anthropic event becomes (often none). */
  (event: AnthropicWireStreamEvent): ChatCompletionChunk[];
  /** Whether `message_stop` has been seen. */
  readonly done: boolean;
}

/**
 * Anthropic stream events → OpenAI chat chunks. Content blocks map by index: text to `content`,
 * thinking to `reasoning_content`, each tool_use block to the next tool call index with its
 * `input_json_delta`s as argument deltas, in order. Usage arrives split over message_start and
 * message_delta, and leaves as one final chunk with `choices: []`.
 */
export const createAnthropicStreamTranslator = (created = Math.floor(Date.now() / 1000)): AnthropicStreamTranslator => {
  let id = '';
  let model = '';
  let usage: AnthropicWireUsage = {};
  let finishReason: FinishReason | null = null;
  const toolIndexByBlock = new Map<number, number>();

  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finish: FinishReason | null = null,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });

  const translate = (event: AnthropicWireStreamEvent): ChatCompletionChunk[] => {
    switch (event.type) {
      case 'message_start':
        id = event.message.id;
        model = event.message.model ?? '';
        usage = { ...event.message.usage };
        return [chunk({ role: 'assistant', content: '' })];
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use' && 'id' in block && 'name' in block) {
          const toolIndex = toolIndexByBlock.size;
          toolIndexByBlock.set(event.index, toolIndex);
          return [
            chunk({
              tool_calls: [
                {
                  index: toolIndex,
                  id: String(block.id),
                  type: 'function',
                  function: { name: String(block.name), arguments: '' },
                },
              ],
            }),
          ];
        }
        if (block.type === 'text' && 'text' in block && block.text) return [chunk({ content: String(block.text) })];
        if (block.type === 'thinking' && 'thinking' in block && block.thinking)
          return [chunk({ reasoning_content: String(block.thinking) })];
        if (block.type === 'redacted_thinking' && 'data' in block)
          return [chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: String(block.data) }] })];
        return [];
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta' && 'text' in delta) return [chunk({ content: String(delta.text) })];
        if (delta.type === 'thinking_delta' && 'thinking' in delta)
          return [chunk({ reasoning_content: String(delta.thinking) })];
        if (delta.type === 'input_json_delta' && 'partial_json' in delta) {
          const toolIndex = toolIndexByBlock.get(event.index);
          if (toolIndex === undefined || !delta.partial_json) return [];
          return [chunk({ tool_calls: [{ index: toolIndex, function: { arguments: String(delta.partial_json) } }] })];
        }
        // A signature closes its thinking block: it travels as a signed block with no further text.
        if (delta.type === 'signature_delta' && 'signature' in delta && delta.signature)
          return [chunk({ thinking_blocks: [{ type: 'thinking', thinking: '', signature: String(delta.signature) }] })];
        // Any newer delta type carries nothing an OpenAI client can use.
        return [];
      }
      case 'message_delta':
        usage = {
          ...usage,
          ...Object.fromEntries(
            Object.entries(event.usage ?? {}).filter(([, value]) => value !== null && value !== undefined),
          ),
        };
        finishReason = mapAnthropicStopReason(event.delta.stop_reason) ?? finishReason;
        return finishReason ? [chunk({}, finishReason)] : [];
      case 'message_stop':
        translator.done = true;
        return [{ id, object: 'chat.completion.chunk', created, model, choices: [], usage: toChatUsage(usage) }];
      case 'content_block_stop':
      case 'ping':
        return [];
      case 'error':
        throw anthropicStreamError(event.error);
      default: {
        const unreachable: never = event;
        throw new Error(`unknown Anthropic event ${String(unreachable)}`);
      }
    }
  };
  // `done` is a member set in place, not an accessor: an accessor whose getter is a new closure gives
  // the function a hidden class of its own each time, kept in the old generation with the stream's state.
  const translator = Object.assign(translate, { done: false });
  return translator;
};
