import type { ChatCompletionRequest } from './chat-completion-request.js';

/** What a translated request must know of its model to be accepted upstream. */
export interface ModelTraits {
  /** Whether the model reasons before answering (the catalog's capability). */
  readonly reasoning: boolean;
}

/**
 * A chat request translated from another protocol, fitted to its model: a reasoning model takes its
 * output limit as `max_completion_tokens` (OpenAI's reasoning models refuse `max_tokens`, and the limit
 * covers the reasoning too), and only a reasoning model takes a `reasoning_effort` (others refuse it).
 */
export const fitChatRequest = (request: ChatCompletionRequest, traits: ModelTraits): ChatCompletionRequest => {
  const { max_tokens: maxTokens, reasoning_effort: effort, ...rest } = request;
  const limit = request.max_completion_tokens ?? maxTokens;
  if (!traits.reasoning) {
    return { ...rest, ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}) };
  }
  return {
    ...rest,
    ...(limit !== undefined && limit !== null ? { max_completion_tokens: limit } : {}),
    ...(effort !== undefined && effort !== null ? { reasoning_effort: effort } : {}),
  };
};
