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
