import type { LimitDimension, WindowResult } from './rate-limit-window.js';
import { WINDOW_MS } from './rate-limit-window.js';

/**
 * A duration as OpenAI writes it in `x-ratelimit-reset-*`: `20ms`, `1s`, `6m0s`.
 */
export const formatResetDuration = (milliseconds: number): string => {
  const ms = Math.max(0, Math.ceil(milliseconds));
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
};

/** The window result that binds a dimension: the one with the fewest units left. */
const tightest = (results: readonly WindowResult[]): WindowResult | undefined =>
  results.reduce<WindowResult | undefined>((best, result) => {
    const left = (candidate: WindowResult) => candidate.charge.limit - candidate.count;
    return best === undefined || left(result) < left(best) ? result : best;
  }, undefined);

/**
 * `x-ratelimit-limit-*`, `x-ratelimit-remaining-*` and `x-ratelimit-reset-*` for each dimension that
 * has a limit, from the tightest of the key's and the account's windows.
 */
export const rateLimitHeaders = (results: readonly WindowResult[], now: number): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const dimension of ['requests', 'tokens'] as const satisfies readonly LimitDimension[]) {
    const binding = tightest(results.filter((result) => result.charge.dimension === dimension));
    if (!binding) continue;
    const { limit, windowStart } = binding.charge;
    headers[`x-ratelimit-limit-${dimension}`] = String(limit);
    headers[`x-ratelimit-remaining-${dimension}`] = String(Math.max(0, limit - binding.count));
    headers[`x-ratelimit-reset-${dimension}`] = formatResetDuration(windowStart + WINDOW_MS - now);
  }
  return headers;
};
