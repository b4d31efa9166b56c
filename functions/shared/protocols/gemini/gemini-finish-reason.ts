import type { FinishReason } from '../openai-chat/chat-completion-result.js';

/** OpenAI's finish_reason as Gemini's, for answers translated to the generateContent format. */
export const toGeminiFinishReason = (reason: FinishReason | null | undefined): string | undefined => {
  if (reason === null || reason === undefined) return undefined;
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'function_call':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default: {
      const unreachable: never = reason;
      return unreachable;
    }
  }
};
