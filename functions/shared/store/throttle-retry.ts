import { GatewayError } from '../errors.js';

/**
 * DynamoDB answers a partition or table over its throughput with a throttling error. Every store call
 * retries it a few times itself (`operations.ts`); bookkeeping writes (counters, spend, usage) retry
 * longer here, with full-jitter exponential backoff so that a fleet of instances does not retry in
 * step and throttle again.
 */

const THROTTLE_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

const THROTTLE_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/** Whether the store refused for throughput (also inside a cancelled transaction), not for the request. */
export const isThrottled = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (THROTTLE_ERRORS.has(error.name)) return true;
  const reasons = (error as { CancellationReasons?: readonly { Code?: string }[] }).CancellationReasons;
  return Array.isArray(reasons) && reasons.some((reason) => THROTTLE_REASONS.has(reason.Code ?? ''));
};

export interface RetryOptions {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** The backoff cap of the first retry, doubled each retry up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** About 3 s of retrying at most: well inside a request, long enough for on-demand capacity to adapt. */
export const BOOKKEEPING_RETRY: RetryOptions = { attempts: 8, baseDelayMs: 20, maxDelayMs: 800 };

/** How a retry waits: a pause and the random draw that spreads it (a test gives its own, to wait on events). */
export interface Backoff {
  readonly pause: (milliseconds: number) => Promise<void>;
  readonly random: () => number;
}

export const JITTERED_BACKOFF: Backoff = {
  pause: (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
  random: Math.random,
};

/**
 * The wait before retry number `retry` (1 for the first): full jitter, anywhere between 0 and the
 * exponential cap, so that instances that failed together do not retry together.
 */
export const jitteredDelay = (retry: number, options: RetryOptions, random: () => number): number =>
  random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));

/** What is still left unprocessed by a batch call after its retries: throttling, as the store meant it. */
export class UnprocessedError extends Error {
  override readonly name = 'ProvisionedThroughputExceededException';
}

/**
 * Runs `operation`, retrying it while the store throttles. Any other error is thrown at once; the
 * last throttling error is thrown when the attempts are spent.
 */
export const retryThrottled = async <T>(
  operation: () => Promise<T>,
  options: RetryOptions = BOOKKEEPING_RETRY,
  backoff: Backoff = JITTERED_BACKOFF,
): Promise<T> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      if (!isThrottled(error) || attempt >= options.attempts) throw error;
      await backoff.pause(jitteredDelay(attempt, options, backoff.random));
    }
  }
};

/**
 * What a client gets when admission cannot reach its counters because the store stays throttled:
 * a 429 with `Retry-After`, which every SDK retries, never a 500.
 */
export const storeBusy = (cause: unknown): GatewayError =>
  new GatewayError('The gateway is handling too many requests for this account right now. Please retry shortly.', {
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': '1' },
    cause,
  });

/** A throttling error as the client's 429 (`storeBusy`); any other error as it is. */
export const busyIfThrottled = (error: unknown): unknown => (isThrottled(error) ? storeBusy(error) : error);

/** Like `retryThrottled`, for work on the client's critical path: a throttle that outlasts the retries is a 429. */
export const retryThrottledOrBusy = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await retryThrottled(operation);
  } catch (error) {
    throw busyIfThrottled(error);
  }
};
