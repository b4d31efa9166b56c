import type { BudgetSettings } from './budget-settings.js';
import type { RateLimitSettings } from './accounts.js';
import { deleteItem, getItem, putItem, queryPage, updateItem } from './documents.js';
import { queryAllByIndex } from './query-all.js';
import { physicalTableName } from './tables.js';
import { invalidateCaches } from './ttl-cache.js';

export type KeyRole = 'user' | 'admin';
export type KeyStatus = 'active' | 'revoked';

/** A stored key. The plaintext is never stored: only its SHA-256 and its first characters. */
export interface ApiKeyRecord {
  readonly keyHash: string;
  readonly id: string;
  readonly prefix: string;
  readonly accountId: string;
  readonly name: string | null;
  readonly role: KeyRole;
  readonly status: KeyStatus;
  /** ISO-8601; `null` for a key that does not expire. */
  readonly expiresAt: string | null;
  /** Narrows the account's models; `null` means the account's list as it is. */
  readonly models: readonly string[] | null;
  readonly rateLimit: RateLimitSettings | null;
  /** CIDRs (IPv4 or IPv6) the key may be used from; absent or `null` for anywhere. */
  readonly allowedIps?: readonly string[] | null;
  readonly createdAt: string;
  readonly revokedAt?: string;
  /** The console user who created the key (members see and revoke only their own); absent for keys made otherwise. */
  readonly owner?: string | null;
  /** When a request last authenticated with the key, to the minute (`key-use.ts`); absent if never. */
  readonly lastUsedAt?: string;
  /** The key's own budget; absent or `null` for none. */
  readonly budget?: BudgetSettings | null;
}

export type KeyChanges = Partial<
  Pick<ApiKeyRecord, 'name' | 'models' | 'rateLimit' | 'expiresAt' | 'allowedIps' | 'budget'>
>;

const table = () => physicalTableName('keys');

export const getKeyByHash = async (keyHash: string): Promise<ApiKeyRecord | undefined> => {
  const { Item } = await getItem({ TableName: table(), Key: { keyHash } });
  return Item as ApiKeyRecord | undefined;
};

export const getKeyById = async (id: string): Promise<ApiKeyRecord | undefined> => {
  const { Items } = await queryPage({
    TableName: table(),
    IndexName: 'byId',
    KeyConditionExpression: 'id = :id',
    ExpressionAttributeValues: { ':id': id },
  });
  return Items?.[0] as ApiKeyRecord | undefined;
};

export const listKeysOfAccount = (accountId: string): Promise<ApiKeyRecord[]> =>
  queryAllByIndex<ApiKeyRecord>(table(), 'byAccount', 'accountId', accountId);

export const putKey = async (record: ApiKeyRecord): Promise<ApiKeyRecord> => {
  await putItem({ TableName: table(), Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' });
  invalidateCaches();
  return record;
};

const updateByHash = async (keyHash: string, sets: Record<string, unknown>): Promise<ApiKeyRecord | undefined> => {
  const entries = Object.entries(sets);
  try {
    const { Attributes } = await updateItem({
      TableName: table(),
      Key: { keyHash },
      // Never resurrect a deleted item, and never change a revoked key back.
      ConditionExpression: 'attribute_exists(keyHash) AND #status = :active',
      UpdateExpression: `SET ${entries.map((_, index) => `#a${index} = :v${index}`).join(', ')}`,
      ExpressionAttributeNames: {
        '#status': 'status',
        ...Object.fromEntries(entries.map(([name], index) => [`#a${index}`, name])),
      },
      ExpressionAttributeValues: {
        ':active': 'active',
        ...Object.fromEntries(entries.map(([, value], index) => [`:v${index}`, value])),
      },
      ReturnValues: 'ALL_NEW',
    });
    invalidateCaches();
    return Attributes as ApiKeyRecord;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
};

export const updateKey = (keyHash: string, changes: KeyChanges) =>
  updateByHash(keyHash, Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)));

/**
 * Records that a key was used at `at` (ISO-8601). Conditional, so that an older time never overwrites
 * a newer one and a deleted key is not recreated; a refused condition is not an error. No cache is
 * invalidated: nothing cached reads this field.
 */
export const noteKeyUsed = async (keyHash: string, at: string): Promise<void> => {
  try {
    await updateItem({
      TableName: table(),
      Key: { keyHash },
      ConditionExpression: 'attribute_exists(keyHash) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :at)',
      UpdateExpression: 'SET lastUsedAt = :at',
      ExpressionAttributeValues: { ':at': at },
    });
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

/** Marks a key revoked; it stays listed (with its status) for audit. */
export const revokeKey = (keyHash: string) =>
  updateByHash(keyHash, { status: 'revoked', revokedAt: new Date().toISOString() });

/** Removes a key's item for good (its account is being deleted); a key already gone is fine. */
export const deleteKey = async (keyHash: string): Promise<void> => {
  await deleteItem({ TableName: table(), Key: { keyHash } });
  invalidateCaches();
};
