import { forbidden, invalidApiKey } from '../errors.js';
import { getMember } from '../store/members.js';
import { verifiedEmail } from './cognito-tokens.js';
import { cognitoSettings, consoleAuthMode, type ConsoleUser } from './console-user.js';
import { localSessions, looksLikeSessionToken } from './local-sessions.js';

const signInAgain = () => invalidApiKey('Sign in again: the console session is missing, expired or not valid.');

/** Operators who signed in with an admin key carry it as their identity, not a member record. */
export const ADMIN_KEY_USER_PREFIX = 'admin-key:';

/**
 * A member's rights are read at every request, not frozen into the session: removing a member or
 * changing their role takes effect at once.
 */
const currentRights = async (id: string): Promise<ConsoleUser> => {
  const member = await getMember(id);
  if (!member) throw forbidden('This user is not a member of any gateway account. Ask an operator to add you.');
  return { id: member.id, accountId: member.accountId, role: member.role };
};

/** The console user behind a bearer token (a local session, or a Cognito ID token when deployed); 401 otherwise. */
export const resolveConsoleUser = async (token: string): Promise<ConsoleUser> => {
  const mode = consoleAuthMode();
  switch (mode) {
    case 'local': {
      const user = looksLikeSessionToken(token) ? localSessions.resolve(token) : undefined;
      if (!user) throw signInAgain();
      return user.id.startsWith(ADMIN_KEY_USER_PREFIX) ? user : currentRights(user.id);
    }
    case 'cognito': {
      const email = await verifiedEmail(cognitoSettings()!, token);
      if (!email) throw signInAgain();
      return currentRights(email);
    }
    case undefined:
      throw signInAgain();
    default: {
      const unreachable: never = mode;
      throw new Error(`unknown console auth mode ${String(unreachable)}`);
    }
  }
};
