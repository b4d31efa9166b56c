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
