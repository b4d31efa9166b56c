import type { Principal } from '../shared/auth/principal.js';
import { resolveConsoleUser } from '../shared/console/resolve-console-user.js';
import { forbidden } from '../shared/errors.js';

/**
 * An operator signed in to the console uses the admin API with their session instead of an admin
 * key: the same routes, schemas and store. Any other console user gets the same 403 a user key gets.
 */
export const operatorPrincipal = async (token: string): Promise<Principal> => {
  const user = await resolveConsoleUser(token);
  if (user.role !== 'admin') throw forbidden('This console user may not use the admin API: it needs the admin role.');
  return {
    keyId: `console:${user.id}`,
    keyPrefix: 'console',
    accountId: user.accountId,
    role: 'admin',
    expiresAt: null,
    accountModels: null,
    keyModels: null,
    keyRateLimit: null,
    accountRateLimit: null,
    // An operator signed in with an admin key stays within that key's allow-list (checked by `authenticate`).
    allowedIps: user.allowedIps ?? null,
  };
};
