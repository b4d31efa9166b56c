import { deleteItem, getItem, putItem, updateItem } from './documents.js';
import { scanAll } from './scan-all.js';
import { physicalTableName } from './tables.js';
import { invalidateCaches } from './ttl-cache.js';

export interface RateLimitSettings {
  /** Requests per minute. */
  readonly rpm?: number;
  /** Tokens per minute. */
  readonly tpm?: number;
}

export type AccountStatus = 'active' | 'disabled';

export interface Account {
  readonly id: string;
  readonly name: string;
  /** The models this account may use; `null` means every configured model. */
  readonly models: readonly string[] | null;
  /** USD; `limit: null` means no quota. */
  readonly quota: { readonly limit: number | null; readonly used: number };
  readonly rateLimit: RateLimitSettings | null;
  readonly status: AccountStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type AccountChanges = Partial<Pick<Account, 'name' | 'models' | 'rateLimit' | 'status'>> & {
  readonly quotaLimit?: number | null;
};

const table = () => physicalTableName('accounts');

export const getAccount = async (id: string): Promise<Account | undefined> => {
  const { Item } = await getItem({ TableName: table(), Key: { id } });
  return Item as Account | undefined;
};

export const listAccounts = async (): Promise<Account[]> =>
  (await scanAll<Account>(table())).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

/** Writes a new account; the id must not exist yet. */
export const createAccount = async (account: Account): Promise<Account> => {
  await putItem({ TableName: table(), Item: account, ConditionExpression: 'attribute_not_exists(id)' });
  invalidateCaches();
  return account;
};

/** Applies the given changes to an existing account; `undefined` when it does not exist. */
export const updateAccount = async (id: string, changes: AccountChanges): Promise<Account | undefined> => {
  const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':updatedAt': new Date().toISOString() };
  const sets = ['#updatedAt = :updatedAt'];
  const assign = (attribute: string, path: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    sets.push(`${path} = :${attribute}`);
  };
  if (changes.name !== undefined) assign('name', '#name', changes.name);
  if (changes.models !== undefined) assign('models', '#models', changes.models);
  if (changes.rateLimit !== undefined) assign('rateLimit', '#rateLimit', changes.rateLimit);
  if (changes.status !== undefined) assign('status', '#status', changes.status);
  if (changes.quotaLimit !== undefined) {
    names['#quota'] = 'quota';
    names['#limit'] = 'limit';
    values[':limit'] = changes.quotaLimit;
    sets.push('#quota.#limit = :limit');
  }
  try {
    const { Attributes } = await updateItem({
      TableName: table(),
      Key: { id },
      // Only an existing account is updated: an unknown id must not create a half-empty item.
      ConditionExpression: 'attribute_exists(id)',
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    invalidateCaches();
    return Attributes as Account;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
};

/** Removes an account's item; `false` when there was none. */
export const deleteAccount = async (id: string): Promise<boolean> => {
  const { Attributes } = await deleteItem({ TableName: table(), Key: { id }, ReturnValues: 'ALL_OLD' });
  invalidateCaches();
  return Attributes !== undefined;
};
