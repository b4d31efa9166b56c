import { estimateConcatenatedTokens, estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { estimatedUsage, tokenCount, type TokenUsage } from '../shared/accounting/token-usage.js';
import type { ResponsesRequest } from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponsesUsage } from '../shared/protocols/openai-responses/responses-result.js';

/** A Responses `usage` object as the meter records it. */
export const responsesTokenUsage = (usage: ResponsesUsage, source: TokenUsage['source'] = 'upstream'): TokenUsage => ({
  promptTokens: usage.input_tokens ?? 0,
  completionTokens: usage.output_tokens ?? 0,
  totalTokens: usage.total_tokens ?? tokenCount(usage.input_tokens) + tokenCount(usage.output_tokens),
  cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
  reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  source,
});

/** The gateway's own count, for admission and for a stream that ended without the upstream's usage. */
export const estimateResponsesUsage = (request: ResponsesRequest, outputText: string): TokenUsage =>
  estimatedUsage(
    // Counted apart: a Codex conversation's input is long, and joined to the instructions it was copied once more.
    estimateConcatenatedTokens(request.instructions ?? '', JSON.stringify(request.input ?? '')),
    estimateTokens(outputText),
  );
