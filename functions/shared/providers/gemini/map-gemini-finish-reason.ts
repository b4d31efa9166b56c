import type { FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';

/** Gemini's finishReason as OpenAI's finish_reason; a turn that called functions ends in tool_calls. */
export const mapGeminiFinishReason = (
  reason: string | null | undefined,
  calledFunctions: boolean,
): FinishReason | null => {
  if (calledFunctions) return 'tool_calls';
  if (reason === null || reason === undefined || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  switch (reason) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'LANGUAGE':
      return 'content_filter';
    default:
      // MALFORMED_FUNCTION_CALL, OTHER, …: the answer ended; OpenAI has no closer reason.
      return 'stop';
  }
};

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
