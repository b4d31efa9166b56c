import type { FinishReason } from '../openai-chat/chat-completion-result.js';
import type { AnthropicStopReason } from './anthropic-messages-result.js';

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
