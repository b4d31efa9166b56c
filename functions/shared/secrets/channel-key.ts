import type { Channel } from '../store/channels.js';
import { upstreamSecretPrefix } from './upstream-secret-prefix.js';
import { deleteUpstreamKey, storeUpstreamKey } from './upstream-secrets.js';

/** Where a channel record keeps its upstream key: the key itself (local runtime) or its secret's ARN (AWS). */
export type ChannelKeyFields = Pick<Channel, 'apiKey' | 'apiKeySecretArn'>;

const storedKeyFields = (channel: Channel | undefined): ChannelKeyFields => ({
  ...(channel?.apiKey === undefined ? {} : { apiKey: channel.apiKey }),
  ...(channel?.apiKeySecretArn === undefined ? {} : { apiKeySecretArn: channel.apiKeySecretArn }),
});

/**
 * Carries out the `apiKey` of a channel write (admin PUT or config file) and returns the key fields of
 * the record to store: a string sets the key, `null` removes it, absent keeps what `existing` holds.
 * With `UPSTREAM_SECRET_PREFIX` set, the key goes to Secrets Manager and the record gets only the ARN.
 *
 * Secrets change before the record is written, so a failure between the two leaves a record that a
 * retried write puts right, never a record pointing at a secret that was never made.
 */
export const saveChannelKey = async (
  channelId: string,
  apiKey: string | null | undefined,
  existing: Channel | undefined,
): Promise<ChannelKeyFields> => {
  const storedArn = existing?.apiKeySecretArn;
  if (apiKey === null) {
    if (storedArn) await deleteUpstreamKey(storedArn);
    return {};
  }
  if (!upstreamSecretPrefix()) return apiKey === undefined ? storedKeyFields(existing) : { apiKey };
  // A key written into the record before the prefix was set moves to Secrets Manager on this write.
  const key = apiKey ?? existing?.apiKey;
  if (key === undefined) return storedKeyFields(existing);
  const arn = await storeUpstreamKey(channelId, key);
  if (storedArn && storedArn !== arn) await deleteUpstreamKey(storedArn);
  return { apiKeySecretArn: arn };
};

/** Deletes the secret of a channel being deleted, if it has one. */
export const deleteChannelKey = async (channel: Channel): Promise<void> => {
  if (channel.apiKeySecretArn) await deleteUpstreamKey(channel.apiKeySecretArn);
};
