import { invalidValue } from '../errors.js';
import type { Channel } from '../store/channels.js';
import { upstreamSecretPrefix } from './upstream-secret-prefix.js';
import { deleteUpstreamKey, storeUpstreamKey } from './upstream-secrets.js';

/** Where a channel record keeps its upstream key: the key itself (local runtime) or its secret's ARN (AWS). */
export type ChannelKeyFields = Pick<Channel, 'apiKey' | 'apiKeySecretArn'>;

const storedKeyFields = (channel: Channel | undefined): ChannelKeyFields => ({
  ...(channel?.apiKey === undefined ? {} : { apiKey: channel.apiKey }),
  ...(channel?.apiKeySecretArn === undefined ? {} : { apiKeySecretArn: channel.apiKeySecretArn }),
});

/** Where a channel sends its key: its type (which decides the default host and the header) and its base URL. */
export interface ChannelDestination {
  readonly type: Channel['type'];
  readonly baseUrl?: string | null;
}

const hasStoredKey = (channel: Channel | undefined): boolean =>
  channel?.apiKey !== undefined || channel?.apiKeySecretArn !== undefined;

/**
 * Upstream keys are write-only, and so is where they go: a write that moves a channel holding a key
 * to another base URL or type must give the key again. Otherwise whoever may write channels could
 * point one at their own server and receive the organisation's key with the next relayed request.
 * 400 with `param: "apiKey"`; a write that keeps both, or removes the key (`null`), stands.
 */
export const requireKeyForNewDestination = (
  channelId: string,
  apiKey: string | null | undefined,
  existing: Channel | undefined,
  destination: ChannelDestination,
): void => {
  if (apiKey !== undefined || !existing || !hasStoredKey(existing)) return;
  const moved = destination.type !== existing.type || (destination.baseUrl ?? null) !== (existing.baseUrl ?? null);
  if (!moved) return;
  throw invalidValue(
    `Channel '${channelId}' changes its ${destination.type !== existing.type ? 'type' : 'baseUrl'}: give apiKey again ` +
      'with it (the stored key is never sent to a new destination), or null to remove it.',
    'apiKey',
  );
};

/**
 * Carries out the `apiKey` of a channel write (admin PUT or config file) and returns the key fields of
 * the record to store: a string sets the key, `null` removes it, absent keeps what `existing` holds.
 * With `UPSTREAM_SECRET_PREFIX` set, the key goes to Secrets Manager and the record gets only the ARN.
 *
 * A write that moves the channel to another destination without the key is refused first
 * (`requireKeyForNewDestination`): every channel write (the admin API, `apply`, `GATEWAY_CONFIG`, and
 * so gatewayctl and the console, which call them) passes here.
 *
 * Secrets change before the record is written, so a failure between the two leaves a record that a
 * retried write puts right, never a record pointing at a secret that was never made.
 */
export const saveChannelKey = async (
  channelId: string,
  apiKey: string | null | undefined,
  existing: Channel | undefined,
  destination: ChannelDestination,
): Promise<ChannelKeyFields> => {
  requireKeyForNewDestination(channelId, apiKey, existing, destination);
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
