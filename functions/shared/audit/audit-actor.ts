import type { Principal } from '../auth/principal.js';
import type { ConsoleUser } from '../console/console-user.js';
import type { AuditActor } from '../store/audit-entry.js';

/** How an operator's console session appears as a principal of the admin API (admin/operator-session.ts). */
export const CONSOLE_PRINCIPAL_PREFIX = 'console:';

/** How a console session opened with an admin key names its user (console/resolve-console-user.ts). */
const ADMIN_KEY_USER_PREFIX = 'admin-key:';

/** The actor of a console user: a member by e-mail address, or the admin key an operator signed in with. */
export const consoleUserActor = (user: Pick<ConsoleUser, 'id'>): AuditActor =>
  user.id.startsWith(ADMIN_KEY_USER_PREFIX)
    ? { kind: 'admin-key', id: user.id.slice(ADMIN_KEY_USER_PREFIX.length) }
    : { kind: 'console-user', id: user.id };

/**
 * The actor behind an admin-role principal: its key, or the console user whose session it stands for.
 * `undefined` for a user key, which changes nothing the trail records.
 */
export const principalActor = (principal: Principal | undefined): AuditActor | undefined => {
  if (!principal || principal.role !== 'admin') return undefined;
  return principal.keyId.startsWith(CONSOLE_PRINCIPAL_PREFIX)
    ? consoleUserActor({ id: principal.keyId.slice(CONSOLE_PRINCIPAL_PREFIX.length) })
    : { kind: 'admin-key', id: principal.keyId };
};
