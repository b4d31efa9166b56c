import { deleteItem, getItem, putItem } from './documents.js';
import { scanAll } from './scan-all.js';
import { physicalTableName } from './tables.js';
import { invalidateCaches } from './ttl-cache.js';

/** USD per million tokens. */
export interface ModelPricing {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** Price of prompt tokens served from the upstream's cache; the input price when absent. */
  readonly cachedInputPerMTok?: number;
  /** Price of prompt tokens written to the upstream's cache; 1.25 × the input price when absent. */
  readonly cacheWritePerMTok?: number;
  /**
   * Long-context prices: a request whose prompt has more input tokens than a tier's
   * `aboveInputTokens` is priced wholly at that tier (the highest such tier), as Anthropic and Google
   * price prompts over 200,000 tokens.
   */
  readonly tiers?: readonly PricingTier[];
}

/** The prices of a request whose prompt is longer than `aboveInputTokens`. */
export interface PricingTier {
  readonly aboveInputTokens: number;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok?: number;
  readonly cacheWritePerMTok?: number;
}

/** Where a model's effective price comes from (DESIGN §11). */
export type PricingSource = 'admin' | 'catalog' | 'none';

/** Settings of a public model id: what it costs, which other names reach it, who owns it. */
export interface ModelSettings {
  readonly id: string;
  readonly pricing: ModelPricing | null;
  readonly aliases: readonly string[];
  readonly ownedBy: string | null;
  /** Whether the model reasons before answering; absent: decided from its id. */
  readonly reasoning?: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const table = () => physicalTableName('models');

export const getModelSettings = async (id: string): Promise<ModelSettings | undefined> => {
  const { Item } = await getItem({ TableName: table(), Key: { id } });
  return Item as ModelSettings | undefined;
};

export const listModelSettings = async (): Promise<ModelSettings[]> =>
  (await scanAll<ModelSettings>(table())).sort((a, b) => a.id.localeCompare(b.id));

export const putModelSettings = async (settings: ModelSettings): Promise<ModelSettings> => {
  await putItem({ TableName: table(), Item: settings });
  invalidateCaches();
  return settings;
};

export const deleteModelSettings = async (id: string): Promise<boolean> => {
  const { Attributes } = await deleteItem({ TableName: table(), Key: { id }, ReturnValues: 'ALL_OLD' });
  invalidateCaches();
  return Attributes !== undefined;
};
