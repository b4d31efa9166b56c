import type { TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import { tokenCount } from '../../accounting/token-usage.js';
import type { ChatUsage } from '../../protocols/openai-chat/chat-completion-result.js';

/**
 * Bedrock's usage as OpenAI's: Bedrock counts input read from or written to the prompt cache apart
 * from `inputTokens`, OpenAI counts all input in `prompt_tokens` and names the cached part.
 */
export const toChatUsage = (usage: Partial<TokenUsage>): ChatUsage => {
  // The SDK checks no types here: each count is read as a whole number of tokens (`tokenCount`).
  const cacheRead = tokenCount(usage.cacheReadInputTokens);
  const cacheWrite = tokenCount(usage.cacheWriteInputTokens);
  const promptTokens = tokenCount(usage.inputTokens) + cacheRead + cacheWrite;
  const completionTokens = tokenCount(usage.outputTokens);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    // Cache writes are priced apart; the gateway names them beside OpenAI's cached_tokens.
    prompt_tokens_details: { cached_tokens: cacheRead, ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}) },
  };
};
