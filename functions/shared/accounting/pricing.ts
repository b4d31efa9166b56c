import type { ModelPricing } from '../store/models.js';

/** The token counts that decide a request's price (a `TokenUsage` fits). */
export interface PricedUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the upstream's prompt cache; part of `promptTokens`. */
  readonly cachedTokens?: number;
  /** Reasoning tokens; part of `completionTokens` (OpenAI's convention), so priced as output. */
  readonly reasoningTokens?: number;
}

const PER_MILLION = 1_000_000;

/** USD amounts are kept to 1e-12 so that sums in the store do not collect binary fractions. */
export const roundUsd = (value: number): number => Math.round(value * 1e12) / 1e12;

/**
 * What a request costs in USD: prompt tokens at `inputPerMTok` (the cached ones at
 * `cachedInputPerMTok` when the model sets it), completion tokens (reasoning included) at
 * `outputPerMTok`. A model without pricing costs nothing.
 */
export const usageCost = (pricing: ModelPricing | null | undefined, usage: PricedUsage): number => {
  if (!pricing) return 0;
  const cached = Math.min(Math.max(usage.cachedTokens ?? 0, 0), usage.promptTokens);
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  const cost =
    ((usage.promptTokens - cached) * pricing.inputPerMTok +
      cached * cachedPrice +
      usage.completionTokens * pricing.outputPerMTok) /
    PER_MILLION;
  return roundUsd(Math.max(cost, 0));
};
