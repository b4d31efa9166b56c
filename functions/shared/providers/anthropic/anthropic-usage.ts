import type { ChatUsage } from '../../protocols/openai-chat/chat-completion-result.js';
import type { AnthropicWireUsage } from './anthropic-api.js';

/**
 * Anthropic's usage as OpenAI's: Anthropic counts cached and cache-written input apart from
 * `input_tokens`, OpenAI counts all input in `prompt_tokens` and names the cached part.
 */
export const toChatUsage = (usage: AnthropicWireUsage): ChatUsage => {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheRead + cacheWrite;
  const completionTokens = usage.output_tokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    // Cache writes are priced apart; the gateway names them beside OpenAI's cached_tokens.
    prompt_tokens_details: { cached_tokens: cacheRead, ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}) },
  };
};
