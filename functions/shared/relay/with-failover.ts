import { log } from '../log.js';
import type { Channel } from '../store/channels.js';
import { UpstreamError } from './upstream-errors.js';

export const MAX_ATTEMPTS = 3;

export interface FailoverResult<T> {
  readonly result: T;
  readonly channel: Channel;
  readonly attempts: number;
}

/**
 * Calls the channels in order until one answers. Only a retryable failure (unreachable, timeout,
 * 429, 5xx: all before the first byte reached the client) moves on to the next channel; anything
 * else, or the last failure, is thrown as it is.
 */
export const withFailover = async <T>(
  channels: readonly Channel[],
  attempt: (channel: Channel) => Promise<T>,
  onFailure: (channel: Channel, error: unknown) => void = () => undefined,
): Promise<FailoverResult<T>> => {
  const tries = channels.slice(0, MAX_ATTEMPTS);
  let lastError: unknown;
  for (const [index, channel] of tries.entries()) {
    try {
      return { result: await attempt(channel), channel, attempts: index + 1 };
    } catch (error) {
      lastError = error;
      onFailure(channel, error);
      const retryable = error instanceof UpstreamError && error.retryable;
      if (!retryable || index === tries.length - 1) break;
      log.warn('channel failed, trying the next one', { channelId: channel.id, status: (error as UpstreamError).status });
    }
  }
  throw lastError;
};
