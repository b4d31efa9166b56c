import { quotaAsBudget, type BudgetSettings } from './budget-settings.js';
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
  /**
   * The account's budget; absent on accounts made before budgets, whose `quota.limit` is their
   * budget (a total one). Writing either keeps the other in step.
   */
  readonly budget?: BudgetSettings | null;
  readonly status: AccountStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type AccountChanges = Partial<Pick<Account, 'name' | 'models' | 'rateLimit' | 'status'>> & {
  readonly quotaLimit?: number | null;
  /** A budget, or `null` to remove it; the quota's limit follows (a total budget's limit, else none). */
  readonly budget?: BudgetSettings | null;
};

/** The account's budget: its own, else its older quota as a total budget, else none. */
export const accountBudget = (account: Pick<Account, 'budget' | 'quota'>): BudgetSettings | null => {
  if (account.budget !== undefined) return account.budget;
  const limit = account.quota?.limit ?? null;
  return limit === null ? null : quotaAsBudget(limit);
};

/** The budget and quota limit an account keeps for a `budget` or `quota` given to it (the budget wins). */
export const budgetAndQuota = (changes: {
  readonly budget?: BudgetSettings | null;
  readonly quotaLimit?: number | null;
}): { budget?: BudgetSettings | null; quotaLimit?: number | null } => {
  if (changes.budget !== undefined) {
    const budget = changes.budget;
    return { budget, quotaLimit: budget?.period === 'total' ? budget.limitUsd : null };
  }
  if (changes.quotaLimit !== undefined) {
    return {
      budget: changes.quotaLimit === null ? null : quotaAsBudget(changes.quotaLimit),
      quotaLimit: changes.quotaLimit,
    };
  }
  return {};
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
  const { budget, quotaLimit } = budgetAndQuota(changes);
  if (budget !== undefined) assign('budget', '#budget', budget);
  if (quotaLimit !== undefined) {
    names['#quota'] = 'quota';
    names['#limit'] = 'limit';
    values[':limit'] = quotaLimit;
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
