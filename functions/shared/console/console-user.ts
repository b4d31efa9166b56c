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

/** The federated sign-in the stack added to the pool (`-c ssoProvider`): nothing here is secret. */
export interface SsoSettings {
  /** The identity provider's name in the pool, passed as `identity_provider` to skip Cognito's own page. */
  readonly provider: string;
  /** The SSO app client (authorization code flow with PKCE, no secret). */
  readonly clientId: string;
  /** The pool's sign-in domain, as a base URL (`https://<prefix>.auth.<region>.amazoncognito.com`). */
  readonly domain: string;
  /** The console's URL as the stack registered it as the client's callback. */
  readonly redirectUri: string;
}

/** Set by the stack with `-c ssoProvider`; SSO is offered only when every part is there. */
export const ssoSettings = (): SsoSettings | undefined => {
  const provider = process.env.GATEWAY_CONSOLE_SSO_PROVIDER;
  const clientId = process.env.GATEWAY_CONSOLE_SSO_CLIENT_ID;
  const domain = process.env.GATEWAY_CONSOLE_SSO_DOMAIN?.replace(/\/+$/, '');
  const redirectUri = process.env.GATEWAY_CONSOLE_SSO_REDIRECT_URI;
  if (!provider || !clientId || !domain || !redirectUri || !cognitoSettings()) return undefined;
  return { provider, clientId, domain: /^https?:\/\//.test(domain) ? domain : `https://${domain}`, redirectUri };
};
