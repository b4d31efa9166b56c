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
