import type { MemberRole } from '../store/members.js';

/** Who is signed in to the console, and what the server lets them do. */
export interface ConsoleUser {
  /** The member's e-mail address (lower case), or `admin-key:<key id>` for an operator signed in with an admin key. */
  readonly id: string;
  readonly accountId: string;
  readonly role: MemberRole;
  /** An operator signed in with an admin key: that key's IP allow-list (`null` for anywhere). */
  readonly allowedIps?: readonly string[] | null;
}

/**
 * How people sign in. `local`: `npm start`, sessions issued by this process (an admin key, or a
 * member's password); `cognito`: the stack's user pool, whose ID tokens the API verifies.
 */
export type ConsoleAuthMode = 'local' | 'cognito';

export interface CognitoSettings {
  readonly userPoolId: string;
  readonly clientId: string;
  readonly region: string;
}

/** Set by the stack on the functions that read console tokens. */
export const cognitoSettings = (): CognitoSettings | undefined => {
  const userPoolId = process.env.GATEWAY_CONSOLE_USER_POOL_ID;
  const clientId = process.env.GATEWAY_CONSOLE_CLIENT_ID;
  if (!userPoolId || !clientId) return undefined;
  return { userPoolId, clientId, region: userPoolId.split('_')[0]! };
};

/** Local sessions only where the local runtime asked for them; everywhere else, Cognito or nothing. */
export const consoleAuthMode = (): ConsoleAuthMode | undefined => {
  if (process.env.GATEWAY_CONSOLE_AUTH === 'local') return 'local';
  return cognitoSettings() ? 'cognito' : undefined;
};
