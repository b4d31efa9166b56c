/** Token counts as the accounting layer records them. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cachedTokens: number;
  /** Prompt tokens written to the upstream's prompt cache (Anthropic, Bedrock); part of promptTokens. */
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens: number;
  /** `upstream` when the provider reported the counts, `estimate` when the gateway counted. */
  readonly source: 'upstream' | 'estimate';
}

/** Counts the gateway made itself (no upstream report), as the meter records them. */
export const estimatedUsage = (promptTokens: number, completionTokens: number): TokenUsage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  cachedTokens: 0,
  reasoningTokens: 0,
  source: 'estimate',
});

/** A reported count as the accounting keeps it: a whole number of tokens, at least 0, at most 2^53 − 1; 0 for what is no number. */
export const tokenCount = (value: unknown): number => {
  // The AWS SDK reads integers past 2^53 as bigints, which JSON.stringify refuses.
  const number = typeof value === 'bigint' ? Number(value) : value;
  return typeof number === 'number' && number > 0 ? Math.min(Math.round(number), Number.MAX_SAFE_INTEGER) : 0;
};

/**
 * Usage as an upstream reported it, made fit to price, add to a quota and store: each count a whole
 * number of tokens, never negative (a negative count would give the account credit) and never beyond
 * what a number holds exactly (or what DynamoDB stores); anything that is not a number counts 0. The
 * meter passes every report through it, so no provider's reading has to get this right on its own.
 */
export const usableUsage = (usage: TokenUsage): TokenUsage => ({
  promptTokens: tokenCount(usage.promptTokens),
  completionTokens: tokenCount(usage.completionTokens),
  totalTokens: tokenCount(usage.totalTokens),
  cachedTokens: tokenCount(usage.cachedTokens),
  ...(usage.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: tokenCount(usage.cacheWriteTokens) }),
  reasoningTokens: tokenCount(usage.reasoningTokens),
  source: usage.source,
});
