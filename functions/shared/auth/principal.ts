import { invalidApiKey } from '../errors.js';
import { getAccount, type RateLimitSettings } from '../store/accounts.js';
import { getKeyByHash, type KeyRole } from '../store/keys.js';
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
  /** The account's USD quota, `null` for none (admission reserves against it). */
  readonly quotaLimit?: number | null;
  /** CIDRs the key may be used from, `null` for anywhere. */
  readonly allowedIps?: readonly string[] | null;
}

// `null` caches a refusal too, so a client retrying a bad key does not cost a read each time.
const principals = new TtlCache<Principal | null>(cacheTtlMs);

const loadPrincipal = async (keyHash: string): Promise<Principal | null> => {
  const record = await getKeyByHash(keyHash);
  if (!record || record.status !== 'active') return null;
  const account = await getAccount(record.accountId);
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
    allowedIps: record.allowedIps ?? null,
  };
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
