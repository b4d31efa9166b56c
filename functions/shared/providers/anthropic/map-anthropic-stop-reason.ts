import type { AnthropicStopReason } from '../../protocols/anthropic-messages/anthropic-messages-result.js';
import type { FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';

/** Anthropic's stop_reason as OpenAI's finish_reason; an unknown reason reads as a normal stop. */
export const mapAnthropicStopReason = (reason: string | null | undefined): FinishReason | null => {
  if (reason === null || reason === undefined) return null;
  switch (reason as AnthropicStopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
};

/** OpenAI's finish_reason as Anthropic's stop_reason, for answers translated to the Messages format. */
export const toAnthropicStopReason = (reason: FinishReason | null | undefined): AnthropicStopReason | null => {
  if (reason === null || reason === undefined) return null;
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default: {
      const unreachable: never = reason;
      return unreachable;
    }
  }
};
