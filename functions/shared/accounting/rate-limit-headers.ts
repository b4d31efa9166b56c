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

/** Units a window has left after its result. */
const left = (result: WindowResult) => result.charge.limit - result.count;

/** The three headers of one dimension, from the result that binds it. */
const addDimension = (
  headers: Record<string, string>,
  dimension: LimitDimension,
  binding: WindowResult,
  now: number,
): void => {
  const { limit, windowStart } = binding.charge;
  headers[`x-ratelimit-limit-${dimension}`] = String(limit);
  headers[`x-ratelimit-remaining-${dimension}`] = String(Math.max(0, left(binding)));
  headers[`x-ratelimit-reset-${dimension}`] = formatResetDuration(windowStart + WINDOW_MS - now);
};

/**
 * `x-ratelimit-limit-*`, `x-ratelimit-remaining-*` and `x-ratelimit-reset-*` for each dimension that
 * has a limit, from the tightest of the key's and the account's windows (the first, on a tie).
 */
export const rateLimitHeaders = (results: readonly WindowResult[], now: number): Record<string, string> => {
  let requests: WindowResult | undefined;
  let tokens: WindowResult | undefined;
  for (const result of results) {
    if (result.charge.dimension === 'requests') {
      if (requests === undefined || left(result) < left(requests)) requests = result;
    } else if (tokens === undefined || left(result) < left(tokens)) tokens = result;
  }
  const headers: Record<string, string> = {};
  if (requests) addDimension(headers, 'requests', requests, now);
  if (tokens) addDimension(headers, 'tokens', tokens, now);
  return headers;
};
