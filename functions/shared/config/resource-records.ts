import { hashApiKey, keyPrefix, newId } from '../auth/api-key.js';
import type { ChannelKeyFields } from '../secrets/channel-key.js';
import { budgetAndQuota, type Account } from '../store/accounts.js';
import type { Channel } from '../store/channels.js';
import type { ApiKeyRecord } from '../store/keys.js';
import type { ModelSettings } from '../store/models.js';
import type { AccountInput, ChannelInput, KeyInput, ModelInput } from './resource-schemas.js';

/**
 * Validated input → the stored record. The admin API and the config file both write through these,
 * so a channel put by `PUT /admin/v1/channels/{id}` and one declared in a file are the same record.
 */

const nowIso = () => new Date().toISOString();

/**
 * A channel replacing `existing` (if any), keeping its creation time. The key fields come from
 * `saveChannelKey` (`functions/shared/secrets/channel-key.ts`), which has already stored or removed
 * the key; `input.apiKey` itself is never copied.
 */
export const channelRecord = (
  id: string,
  input: Omit<ChannelInput, 'apiKey'>,
  key: ChannelKeyFields,
  existing: Channel | undefined,
  now = nowIso(),
): Channel => ({
  id,
  type: input.type,
  baseUrl: input.baseUrl ?? null,
  ...(key.apiKey === undefined ? {} : { apiKey: key.apiKey }),
  ...(key.apiKeySecretArn === undefined ? {} : { apiKeySecretArn: key.apiKeySecretArn }),
  models: input.models,
  modelMap: input.modelMap ?? {},
  endpoints: input.endpoints ?? null,
  priority: input.priority,
  weight: input.weight,
  enabled: input.enabled,
  timeouts: input.timeouts ?? null,
  createdAt: existing?.createdAt ?? now,
  updatedAt: now,
});

/** Model settings replacing `existing` (if any), keeping its creation time. */
export const modelSettingsRecord = (
  id: string,
  input: ModelInput,
  existing: ModelSettings | undefined,
  now = nowIso(),
): ModelSettings => ({
  id,
  pricing: input.pricing ?? null,
  aliases: input.aliases ?? [],
  ownedBy: input.ownedBy ?? null,
  ...(typeof input.reasoning === 'boolean' ? { reasoning: input.reasoning } : {}),
  createdAt: existing?.createdAt ?? now,
  updatedAt: now,
});

/** A new account's budget and quota, kept in step (`budgetAndQuota`). */
const accountBudgetFields = (input: AccountInput): Pick<Account, 'budget' | 'quota'> => {
  const { budget, quotaLimit } = budgetAndQuota({ budget: input.budget, quotaLimit: input.quota?.limit });
  return { ...(budget === undefined ? {} : { budget }), quota: { limit: quotaLimit ?? null, used: 0 } };
};

export const newAccountRecord = (id: string, input: AccountInput, now = nowIso()): Account => ({
  id,
  name: input.name,
  models: input.models ?? null,
  ...accountBudgetFields(input),
  rateLimit: input.rateLimit ?? null,
  status: input.status ?? 'active',
  createdAt: now,
  updatedAt: now,
});

/** The stored form of a plaintext key: only its hash and its prefix are kept. */
export const newKeyRecord = (key: string, accountId: string, input: KeyInput, now = nowIso()): ApiKeyRecord => ({
  keyHash: hashApiKey(key),
  id: newId('key'),
  prefix: keyPrefix(key),
  accountId,
  name: input.name ?? null,
  role: input.role ?? 'user',
  status: 'active',
  expiresAt: input.expiresAt ?? null,
  models: input.models ?? null,
  rateLimit: input.rateLimit ?? null,
  allowedIps: input.allowedIps ?? null,
  ...(input.budget ? { budget: input.budget } : {}),
  createdAt: now,
});
