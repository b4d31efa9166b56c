import { forbidden, notFound } from '../shared/errors.js';
import type { ConsoleUser } from '../shared/console/console-user.js';
import type { ApiKeyRecord } from '../shared/store/keys.js';

/**
 * The console's authorization rules, in one place:
 * - a member sees and revokes the keys they created, and the usage of those keys, in their account;
 * - an account admin does so for every key and member of their account;
 * - an operator (`admin`) for every account.
 * Admin-role keys are operators' keys: only operators see or revoke them, even inside their account.
 * Nobody reaches another account's keys or usage: a key of another account is "not found", exactly
 * as a key that does not exist.
 */

export const isOperator = (user: ConsoleUser): boolean => user.role === 'admin';

/** Whether the user sees everything of their account, not just their own keys. */
export const seesWholeAccount = (user: ConsoleUser): boolean => user.role !== 'member';

/**
 * The account a request acts on: the user's own, or for an operator the one named. Naming another
 * account is refused for everyone else.
 */
export const accountInScope = (user: ConsoleUser, requested: string | undefined): string => {
  if (requested === undefined || requested === user.accountId) return user.accountId;
  if (isOperator(user)) return requested;
  throw forbidden('You may only act on your own account.');
};

/** Whether the user may see and revoke this key. */
export const mayTouchKey = (user: ConsoleUser, key: ApiKeyRecord): boolean => {
  if (isOperator(user)) return true;
  if (key.accountId !== user.accountId || key.role === 'admin') return false;
  return seesWholeAccount(user) || key.owner === user.id;
};

/** The key if the user may touch it; the same 404 as for an unknown id otherwise. */
export const requireTouchableKey = (user: ConsoleUser, id: string, key: ApiKeyRecord | undefined): ApiKeyRecord => {
  if (!key || !mayTouchKey(user, key)) throw notFound(`No key with id '${id}'.`);
  return key;
};
