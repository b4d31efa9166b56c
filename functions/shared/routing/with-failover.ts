import { log } from '../log.js';
import type { Channel } from '../store/channels.js';
import { channelWithKey } from './channel-credentials.js';
import { healthyFirst, recordChannelFailure, recordChannelSuccess } from './channel-health.js';
import { abortError, UpstreamError } from '../upstream/upstream-errors.js';

/** Calls to upstreams for one request, at most: a failing request must not hold the client long. */
export const MAX_ATTEMPTS = 3;
/**
 * The longest the gateway waits for an upstream's Retry-After before asking it again, when no other
 * channel is left. Longer waits are the client's to decide: it gets the 429 and the Retry-After.
 */
export const MAX_RETRY_AFTER_WAIT_MS = 5_000;

export interface FailoverResult<T> {
  readonly result: T;
  readonly channel: Channel;
  readonly attempts: number;
}

export interface FailoverOptions {
  /** Aborted when the client goes away: no further attempt, no waiting. */
  readonly signal?: AbortSignal;
  /**
   * Told of every attempt before it starts, so a request that fails still names its last channel, and
   * of the time each attempt (and each Retry-After wait) took, which is the upstream's, not the gateway's.
   */
  readonly meter?: { served?(channel: Channel, attempts: number): void; upstreamTime?(milliseconds: number): void };
}

const isRetryable = (error: unknown): error is UpstreamError => error instanceof UpstreamError && error.retryable;

const wait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Calls the channels until one answers, healthy ones first (see channel-health.ts). Only a retryable
 * failure (unreachable, timeout, 429, 5xx: all before the first byte reached the client) moves on to
 * the next channel. When every channel has been tried and one asked to be retried after a short
 * while, that one is asked again after waiting what it asked. Anything else, or the last failure, is
 * thrown as it is.
 */
export const withFailover = async <T>(
  channels: readonly Channel[],
  attempt: (channel: Channel) => Promise<T>,
  options: FailoverOptions = {},
): Promise<FailoverResult<T>> => {
  const queue = healthyFirst(channels);
  /** Channels that asked to be retried after a short wait, with the time they may be asked again. */
  const retryLater: Array<{ channel: Channel; at: number }> = [];
  let lastError: unknown = undefined;
  for (let attempts = 1; attempts <= MAX_ATTEMPTS; attempts++) {
    let channel = queue.shift();
    if (!channel) {
      retryLater.sort((a, b) => a.at - b.at);
      const next = retryLater.shift();
      if (!next) break;
      const waitStarted = performance.now();
      try {
        await wait(next.at - Date.now(), options.signal);
      } finally {
        options.meter?.upstreamTime?.(performance.now() - waitStarted);
      }
      channel = next.channel;
    }
    options.meter?.served?.(channel, attempts);
    // Reading the channel's key is the gateway's own work; the attempt from there on is the upstream's.
    let attemptStarted: number | undefined;
    try {
      const withKey = await channelWithKey(channel);
      attemptStarted = performance.now();
      const result = await attempt(withKey);
      options.meter?.upstreamTime?.(performance.now() - attemptStarted);
      recordChannelSuccess(channel.id);
      return { result, channel, attempts };
    } catch (error) {
      if (attemptStarted !== undefined) options.meter?.upstreamTime?.(performance.now() - attemptStarted);
      lastError = error;
      if (!isRetryable(error)) break;
      const coolUntil = recordChannelFailure(channel.id, error.retryAfterMs);
      if (error.retryAfterMs !== undefined && error.retryAfterMs <= MAX_RETRY_AFTER_WAIT_MS) {
        retryLater.push({ channel, at: Date.now() + error.retryAfterMs });
      }
      if (options.signal?.aborted) break;
      log.warn('channel failed', {
        channelId: channel.id,
        status: error.status,
        code: error.code,
        ...(coolUntil ? { coolingUntil: new Date(coolUntil).toISOString() } : {}),
      });
    }
  }
  throw lastError ?? new Error('withFailover needs at least one channel');
};
