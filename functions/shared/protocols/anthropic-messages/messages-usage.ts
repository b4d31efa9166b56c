import type { AnthropicUsage } from './anthropic-messages-result.js';
import type { TokenUsage } from '../../accounting/token-usage.js';

/** Anthropic usage as the accounting layer records it: all input, cached and cache-written included. */
export const anthropicTokenUsage = (
  usage: Partial<AnthropicUsage>,
  source: TokenUsage['source'] = 'upstream',
): TokenUsage => {
  const cached = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cached + written;
  const completionTokens = usage.output_tokens ?? 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: cached,
    cacheWriteTokens: written,
    reasoningTokens: 0,
    source,
  };
};
