import type { TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ChatUsage } from '../../protocols/openai-chat/chat-completion-result.js';

/**
 * Bedrock's usage as OpenAI's: Bedrock counts input read from or written to the prompt cache apart
 * from `inputTokens`, OpenAI counts all input in `prompt_tokens` and names the cached part.
 */
export const toChatUsage = (usage: Partial<TokenUsage>): ChatUsage => {
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  const promptTokens = (usage.inputTokens ?? 0) + cacheRead + cacheWrite;
  const completionTokens = usage.outputTokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    // Cache writes are priced apart; the gateway names them beside OpenAI's cached_tokens.
    prompt_tokens_details: { cached_tokens: cacheRead, ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}) },
  };
};
