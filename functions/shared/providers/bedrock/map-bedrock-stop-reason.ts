import type { StopReason } from '@aws-sdk/client-bedrock-runtime';
import type { FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';

/** Bedrock's stopReason as OpenAI's finish_reason; an unknown or newer reason reads as a normal stop. */
export const mapBedrockStopReason = (reason: string | null | undefined): FinishReason | null => {
  if (reason === null || reason === undefined) return null;
  switch (reason as StopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'content_filtered':
    case 'guardrail_intervened':
      return 'content_filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      // The answer ended without a usable result; OpenAI has no closer reason.
      return 'stop';
    default:
      return 'stop';
  }
};
