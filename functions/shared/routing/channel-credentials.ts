import { log } from '../log.js';
import { readUpstreamKey } from '../secrets/upstream-secrets.js';
import { rememberSecret } from '../security/redact-secrets.js';
import type { Channel } from '../store/channels.js';
import { UpstreamError } from '../upstream/upstream-errors.js';

/**
 * The channel with its upstream key in `apiKey`, ready for a provider: unchanged when the record keeps
 * the key itself (or has none), else a copy with the key read from Secrets Manager (cached in memory).
 * A failed read is a retryable 502 `UpstreamError`, so failover tries the next channel; its message
 * names no secret. The key is made known to the redactor before any upstream can answer, so that an
 * echo of it is removed from every error and log line.
 */
export const channelWithKey = async (channel: Channel): Promise<Channel> => {
  if (!channel.apiKeySecretArn) {
    rememberSecret(channel.apiKey);
    return channel;
  }
  try {
    const apiKey = await readUpstreamKey(channel.apiKeySecretArn);
    rememberSecret(apiKey);
    return { ...channel, apiKey };
  } catch (error) {
    log.warn('could not read the upstream key of a channel', {
      channelId: channel.id,
      error: (error as Error).message,
    });
    throw new UpstreamError('The gateway could not read the credentials of an upstream channel.', {
      status: 502,
      code: 'upstream_error',
      retryable: true,
      cause: error,
    });
  }
};
