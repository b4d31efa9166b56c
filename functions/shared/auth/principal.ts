import type { CoveringBudget } from '../store/budget-settings.js';
import { invalidApiKey } from '../errors.js';
import { accountBudget, getAccount, type Account, type RateLimitSettings } from '../store/accounts.js';
import { getAccountAndMember } from '../store/budget-owners.js';
import type { Member } from '../store/members.js';
import { getKeyByHash, type ApiKeyRecord, type KeyRole } from '../store/keys.js';
import { cacheTtlMs, TtlCache } from '../store/ttl-cache.js';
import { hashApiKey, looksLikeApiKey } from './api-key.js';

/** Who is calling: the key and its account, as far as every request needs them. */
export interface Principal {
  readonly keyId: string;
  /** The key's SHA-256, its item's key in the store; absent for a console session. */
  readonly keyHash?: string;
  readonly keyPrefix: string;
  readonly accountId: string;
  readonly role: KeyRole;
  /** Epoch milliseconds, or `null` for a key that does not expire. */
  readonly expiresAt: number | null;
  /** The account's allowed models, `null` for all. */
  readonly accountModels: readonly string[] | null;
  /** The key's narrowing of them, `null` for none. */
  readonly keyModels: readonly string[] | null;
  readonly keyRateLimit: RateLimitSettings | null;
  readonly accountRateLimit: RateLimitSettings | null;
  /** The account's USD quota, `null` for none: read only where `budgets` is absent. */
  readonly quotaLimit?: number | null;
  /** The budgets that cover the key's requests: its own, its creator member's, its account's, in that order. */
  readonly budgets?: readonly CoveringBudget[];
  /** CIDRs the key may be used from, `null` for anywhere. */
  readonly allowedIps?: readonly string[] | null;
}

// `null` caches a refusal too, so a client retrying a bad key does not cost a read each time.
const principals = new TtlCache<Principal | null>(cacheTtlMs);

const loadPrincipal = async (keyHash: string): Promise<Principal | null> => {
  const record = await getKeyByHash(keyHash);
  if (!record || record.status !== 'active') return null;
  // The account and the member who created the key, in one read: both may hold a budget.
  const { account, member } = record.owner
    ? await getAccountAndMember(record.accountId, record.owner)
    : { account: await getAccount(record.accountId), member: undefined };
  if (!account || account.status !== 'active') return null;
  return {
    keyId: record.id,
    keyHash,
    keyPrefix: record.prefix,
    accountId: account.id,
    role: record.role,
    expiresAt: record.expiresAt ? Date.parse(record.expiresAt) : null,
    accountModels: account.models,
    keyModels: record.models,
    keyRateLimit: record.rateLimit,
    accountRateLimit: account.rateLimit,
    quotaLimit: account.quota?.limit ?? null,
    budgets: budgetsOf(record, member, account),
    allowedIps: record.allowedIps ?? null,
  };
};

const budgetsOf = (
  record: Pick<ApiKeyRecord, 'id' | 'budget'>,
  member: Member | undefined,
  account: Account,
): CoveringBudget[] => {
  const budgets: CoveringBudget[] = [];
  const accountId = account.id;
  if (record.budget) budgets.push({ level: 'key', ownerId: record.id, accountId, ...record.budget });
  // A member's budget covers the keys they created while they belong to the key's account.
  if (member?.budget && member.accountId === accountId) {
    budgets.push({ level: 'member', ownerId: member.id, accountId, ...member.budget });
  }
  const settings = accountBudget(account);
  if (settings) budgets.push({ level: 'account', ownerId: accountId, accountId, ...settings });
  return budgets;
};

/**
 * The principal behind a key, or 401 `invalid_api_key` for a malformed, unknown, revoked or expired
 * key or a disabled account. All refusals read the same, so a caller learns nothing about which.
 */
export const resolvePrincipal = async (key: string): Promise<Principal> => {
  if (!looksLikeApiKey(key)) throw invalidApiKey('Incorrect API key provided.');
  const keyHash = hashApiKey(key);
  return admitted(await principals.getOrLoad(keyHash, () => loadPrincipal(keyHash)));
};

/**
 * The principal of a key known by its hash, read from the store now (no cache): a console session
 * opened with an admin key re-checks the key with it at every request. 401 as `resolvePrincipal`.
 */
export const principalOfKeyHash = async (keyHash: string): Promise<Principal> => admitted(await loadPrincipal(keyHash));

/**
 * `resolvePrincipal` without a promise, for a key already cached (every request of a key but its
 * first in a while): its principal, or undefined when it must be loaded, or refused (which
 * `resolvePrincipal` then does, with the same error as ever).
 */
export const cachedPrincipal = (key: string): Principal | undefined => {
  if (!looksLikeApiKey(key)) return undefined;
  const keyHash = hashApiKey(key);
  const principal = principals.peek(keyHash, () => loadPrincipal(keyHash))?.value;
  return principal && !expired(principal) ? principal : undefined;
};

const expired = (principal: Principal): boolean => principal.expiresAt !== null && principal.expiresAt <= Date.now();

const admitted = (principal: Principal | null): Principal => {
  if (!principal || expired(principal)) throw invalidApiKey('Incorrect API key provided.');
  return principal;
};
