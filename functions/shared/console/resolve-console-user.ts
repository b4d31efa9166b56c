import { principalOfKeyHash } from '../auth/principal.js';
import { forbidden, invalidApiKey } from '../errors.js';
import { getMember } from '../store/members.js';
import { verifiedIdentity } from './cognito-tokens.js';
import {
  cognitoSettings,
  consoleAuthMode,
  ssoSettings,
  type CognitoSettings,
  type ConsoleUser,
} from './console-user.js';
import { localSessions, looksLikeSessionToken } from './local-sessions.js';
import { adminMfaRequired, passedMfa } from './mfa-sign-ins.js';

const signInAgain = () => invalidApiKey('Sign in again: the console session is missing, expired or not valid.');

/** Operators who signed in with an admin key carry it as their identity, not a member record. */
export const ADMIN_KEY_USER_PREFIX = 'admin-key:';

/**
 * A member's rights are read at every request, not frozen into the session: removing a member or
 * changing their role takes effect at once. An operator's Cognito session counts only if it passed
 * TOTP through the console's sign-in (unless the stack relaxed that).
 */
const currentRights = async (
  id: string,
  cognitoSignIn?: { readonly signInId: string | undefined },
): Promise<ConsoleUser> => {
  const member = await getMember(id);
  if (!member) throw forbidden('This user is not a member of any gateway account. Ask an operator to add you.');
  if (cognitoSignIn && member.role === 'admin' && adminMfaRequired() && !passedMfa(member, cognitoSignIn.signInId)) {
    throw forbidden('Operators sign in with a TOTP code: sign in to the console again and set it up.');
  }
  return { id: member.id, accountId: member.accountId, role: member.role };
};

/**
 * An operator's session opened with an admin key stands only while the key does: it is read again at
 * every request, so a revoked or expired key, or a disabled or deleted account, ends the session, and
 * the key's IP allow-list goes with it.
 */
const currentKeyHolder = async (user: ConsoleUser, keyHash: string): Promise<ConsoleUser> => {
  const principal = await principalOfKeyHash(keyHash).catch(() => undefined);
  if (!principal || principal.role !== 'admin') throw signInAgain();
  return { ...user, accountId: principal.accountId, allowedIps: principal.allowedIps ?? null };
};

/** A token of the console's own client, or of the SSO client when the stack offers SSO. */
const identityOf = async (pool: CognitoSettings, token: string) => {
  const identity = await verifiedIdentity(pool, token);
  const sso = identity ? undefined : ssoSettings();
  return sso ? verifiedIdentity({ ...pool, clientId: sso.clientId }, token) : identity;
};

/** The console user behind a bearer token (a local session, or a Cognito ID token when deployed); 401 otherwise. */
export const resolveConsoleUser = async (token: string): Promise<ConsoleUser> => {
  const mode = consoleAuthMode();
  switch (mode) {
    case 'local': {
      const session = looksLikeSessionToken(token) ? localSessions.session(token) : undefined;
      if (!session) throw signInAgain();
      if (session.adminKeyHash !== undefined) return currentKeyHolder(session.user, session.adminKeyHash);
      // Locally, TOTP is not offered: the local runtime serves one laptop.
      return currentRights(session.user.id);
    }
    case 'cognito': {
      const identity = await identityOf(cognitoSettings()!, token);
      if (!identity) throw signInAgain();
      return currentRights(identity.email, { signInId: identity.signInId });
    }
    case undefined:
      throw signInAgain();
    default: {
      const unreachable: never = mode;
      throw new Error(`unknown console auth mode ${String(unreachable)}`);
    }
  }
};
