import { reasonsByDefault } from '../shared/providers/model-reasoning.js';
import type { BudgetView } from '../shared/accounting/budgets.js';
import type { Account } from '../shared/store/accounts.js';
import type { Channel } from '../shared/store/channels.js';
import type { ApiKeyRecord } from '../shared/store/keys.js';
import type { ModelPricing, ModelSettings, PricingSource } from '../shared/store/models.js';

/**
 * What the admin API shows of each record. Fields are listed one by one, never spread from the
 * record, so that a secret added to a record later (a key hash, an upstream key) stays out.
 */

export const accountView = (account: Account, budget: BudgetView | null = null) => ({
  id: account.id,
  name: account.name,
  models: account.models,
  quota: { limit: account.quota.limit, used: account.quota.used },
  budget,
  rateLimit: account.rateLimit,
  status: account.status,
  createdAt: account.createdAt,
  updatedAt: account.updatedAt,
});

export const keyView = (record: ApiKeyRecord, budget: BudgetView | null = null) => ({
  id: record.id,
  prefix: record.prefix,
  accountId: record.accountId,
  name: record.name,
  role: record.role,
  status: record.status,
  expiresAt: record.expiresAt,
  models: record.models,
  rateLimit: record.rateLimit,
  allowedIps: record.allowedIps ?? null,
  createdAt: record.createdAt,
  revokedAt: record.revokedAt ?? null,
  owner: record.owner ?? null,
  lastUsedAt: record.lastUsedAt ?? null,
  budget,
});

/** The only view with the plaintext key: the answer to its creation. */
export const issuedKeyView = (record: ApiKeyRecord, key: string, budget: BudgetView | null = null) => {
  const { id, ...rest } = keyView(record, budget);
  return { id, key, ...rest };
};

export const channelView = (channel: Channel) => ({
  id: channel.id,
  type: channel.type,
  baseUrl: channel.baseUrl,
  // The key itself (local runtime) or a reference to its secret (AWS).
  hasApiKey: Boolean(channel.apiKey || channel.apiKeySecretArn),
  models: channel.models,
  modelMap: channel.modelMap,
  endpoints: channel.endpoints,
  priority: channel.priority,
  weight: channel.weight,
  enabled: channel.enabled,
  timeouts: channel.timeouts ?? null,
  createdAt: channel.createdAt,
  updatedAt: channel.updatedAt,
});

/** A model's effective price and where it comes from (DESIGN §11). */
export interface EffectivePricing {
  readonly pricing: ModelPricing | null;
  readonly pricingSource: PricingSource;
}

/**
 * A model as the admin API shows it: `pricing` is the price requests are charged (the admin's, else
 * the catalogue's), `pricingSource` says which. A served model without settings has no dates.
 */
export const modelView = (id: string, settings: ModelSettings | undefined, effective: EffectivePricing) => ({
  id,
  pricing: effective.pricing,
  pricingSource: effective.pricingSource,
  aliases: settings?.aliases ?? [],
  ownedBy: settings?.ownedBy ?? null,
  reasoning: settings?.reasoning ?? reasonsByDefault(id),
  createdAt: settings?.createdAt ?? null,
  updatedAt: settings?.updatedAt ?? null,
});

export const listView = <T>(items: readonly T[]) => ({ data: items });

export const deletedView = (id: string) => ({ id, deleted: true });
