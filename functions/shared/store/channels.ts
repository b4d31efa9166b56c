import { deleteItem, getItem, putItem } from './documents.js';
import { scanAll } from './scan-all.js';
import { physicalTableName } from './tables.js';
import { invalidateCaches } from './ttl-cache.js';

export const channelTypes = ['openai', 'anthropic', 'gemini', 'bedrock', 'demo'] as const;
export type ChannelType = (typeof channelTypes)[number];

export const endpointKinds = ['chat', 'messages', 'responses', 'embeddings', 'images', 'speech'] as const;
export type EndpointKind = (typeof endpointKinds)[number];

/** An upstream a set of public models is served by. `apiKey` is write-only: never returned by the API. */
export interface Channel {
  readonly id: string;
  readonly type: ChannelType;
  readonly baseUrl: string | null;
  readonly apiKey?: string;
  /** On AWS the key is in Secrets Manager and the record holds only this reference, never `apiKey`. */
  readonly apiKeySecretArn?: string;
  /** Public model ids this channel serves. */
  readonly models: readonly string[];
  /** Public id → the upstream's model name. */
  readonly modelMap: Readonly<Record<string, string>>;
  /** `null` means every endpoint the channel type supports. */
  readonly endpoints: readonly EndpointKind[] | null;
  readonly priority: number;
  readonly weight: number;
  readonly enabled: boolean;
  /** Overrides of the upstream timeouts, in milliseconds. */
  readonly timeouts?: { readonly connectMs?: number; readonly firstByteMs?: number; readonly idleMs?: number } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * The upstream's name a channel maps a public model id to, if it maps it. Own members only: a model may
 * be named `constructor` or `toString`, which every object answers to.
 */
export const mappedModelName = (channel: Pick<Channel, 'modelMap'>, modelId: string): string | undefined =>
  channel.modelMap && Object.hasOwn(channel.modelMap, modelId) ? channel.modelMap[modelId] : undefined;

const table = () => physicalTableName('channels');

export const getChannel = async (id: string): Promise<Channel | undefined> => {
  const { Item } = await getItem({ TableName: table(), Key: { id } });
  return Item as Channel | undefined;
};

export const listChannels = async (): Promise<Channel[]> =>
  (await scanAll<Channel>(table())).sort((a, b) => b.priority - a.priority || a.id.localeCompare(b.id));

export const putChannel = async (channel: Channel): Promise<Channel> => {
  await putItem({ TableName: table(), Item: channel });
  invalidateCaches();
  return channel;
};

/** Deletes a channel; `false` when there was none. */
export const deleteChannel = async (id: string): Promise<boolean> => {
  const { Attributes } = await deleteItem({ TableName: table(), Key: { id }, ReturnValues: 'ALL_OLD' });
  invalidateCaches();
  return Attributes !== undefined;
};
