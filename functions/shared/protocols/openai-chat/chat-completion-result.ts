import type { ThoughtSignatureCarrier } from './thought-signature.js';
import { tokenCount, type TokenUsage } from '../../accounting/token-usage.js';
/** The chat completion result and stream chunk shapes (OpenAI wire format) the gateway emits. */

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    text_tokens?: number;
    audio_tokens?: number;
    image_tokens?: number;
  } | null;
  completion_tokens_details?: { text_tokens?: number; audio_tokens?: number; reasoning_tokens?: number } | null;
  [extra: string]: unknown;
}

export interface ChatToolCall extends ThoughtSignatureCarrier {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: ChatToolCall[];
      reasoning_content?: string;
      refusal?: string | null;
      [extra: string]: unknown;
    };
    finish_reason: FinishReason | null;
    logprobs?: unknown;
  }[];
  usage?: ChatUsage;
  system_fingerprint?: string;
  [extra: string]: unknown;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/**
 * The upstream's input count, on chunks that come before its final usage (Gemini reports it in every
 * response): for translations whose first event carries it (Anthropic's `message_start`). A symbol,
 * so that it never reaches a chat client or the meter, which take only the final `usage`.
 */
export const PROMPT_USAGE: unique symbol = Symbol('prompt usage');

export interface ChatCompletionChunk {
  /** See PROMPT_USAGE. */
  [PROMPT_USAGE]?: ChatUsage;
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: ChatToolCallDelta[];
      refusal?: string | null;
      [extra: string]: unknown;
    };
    finish_reason: FinishReason | null;
    logprobs?: unknown;
  }[];
  usage?: ChatUsage | null;
  system_fingerprint?: string;
  [extra: string]: unknown;
}

/** The cache writes a translated usage carries (`prompt_tokens_details.cache_write_tokens`, the gateway's field). */
const cacheWriteTokensOf = (usage: ChatUsage): number => {
  const written = (usage.prompt_tokens_details as { cache_write_tokens?: unknown } | null | undefined)
    ?.cache_write_tokens;
  return tokenCount(written);
};

/**
 * An upstream's usage as the accounting reads it. A missing total is summed from counts read with
 * `tokenCount` (a sum of other values could throw); the meter makes every count usable (`usableUsage`).
 */
export const toTokenUsage = (usage: ChatUsage): TokenUsage => ({
  promptTokens: usage.prompt_tokens ?? 0,
  completionTokens: usage.completion_tokens ?? 0,
  totalTokens: usage.total_tokens ?? tokenCount(usage.prompt_tokens) + tokenCount(usage.completion_tokens),
  cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  cacheWriteTokens: cacheWriteTokensOf(usage),
  reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  source: 'upstream',
});
