import type { ModelPricing, PricingTier } from '../store/models.js';

/** The token counts that decide a request's price (a `TokenUsage` fits). */
export interface PricedUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the upstream's prompt cache; part of `promptTokens`. */
  readonly cachedTokens?: number;
  /** Prompt tokens written to the upstream's prompt cache; part of `promptTokens`. */
  readonly cacheWriteTokens?: number;
  /** Reasoning tokens; part of `completionTokens` (OpenAI's convention), so priced as output. */
  readonly reasoningTokens?: number;
}

const PER_MILLION = 1_000_000;

/** USD amounts are kept to 1e-12 so that sums in the store do not collect binary fractions. */
export const roundUsd = (value: number): number => Math.round(value * 1e12) / 1e12;

/** Anthropic's price of a cache write (5-minute cache) relative to plain input. */
export const CACHE_WRITE_MULTIPLIER = 1.25;

/** What a cache write costs per million tokens: the model's own price, else input × Anthropic's multiplier. */
export const cacheWritePrice = (pricing: ModelPricing | PricingTier): number =>
  pricing.cacheWritePerMTok ?? pricing.inputPerMTok * CACHE_WRITE_MULTIPLIER;

const clamp = (value: number | undefined, max: number) => Math.min(Math.max(value ?? 0, 0), max);

/** The prices that apply to a prompt of `promptTokens`: the highest tier it passes, else the base prices. */
export const pricesFor = (pricing: ModelPricing, promptTokens: number): ModelPricing | PricingTier => {
  let applied: ModelPricing | PricingTier = pricing;
  let start = -1;
  for (const tier of pricing.tiers ?? []) {
    if (promptTokens > tier.aboveInputTokens && tier.aboveInputTokens > start) {
      applied = tier;
      start = tier.aboveInputTokens;
    }
  }
  return applied;
};

/**
 * What a request costs in USD: prompt tokens at `inputPerMTok`, those read from the upstream's cache
 * at `cachedInputPerMTok` (the input price when the model sets none), those written to it at the
 * cache-write price; completion tokens (reasoning included) at `outputPerMTok`, all at the prices of
 * the long-context tier the prompt reaches, if any. A model without pricing costs nothing.
 */
export const usageCost = (modelPricing: ModelPricing | null | undefined, usage: PricedUsage): number => {
  if (!modelPricing) return 0;
  const pricing = pricesFor(modelPricing, usage.promptTokens);
  const cached = clamp(usage.cachedTokens, usage.promptTokens);
  const written = clamp(usage.cacheWriteTokens, usage.promptTokens - cached);
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  const cost =
    ((usage.promptTokens - cached - written) * pricing.inputPerMTok +
      cached * cachedPrice +
      written * cacheWritePrice(pricing) +
      usage.completionTokens * pricing.outputPerMTok) /
    PER_MILLION;
  return roundUsd(Math.max(cost, 0));
};
