import { GatewayError } from '../errors.js';
import { verifiedIdentity, type VerifiedIdentity } from './cognito-tokens.js';
import type { CognitoSettings, SsoSettings } from './console-user.js';

/** What the page sends back after the pool's sign-in domain redirected to it with `?code=`. */
export interface SsoCode {
  readonly code: string;
  /** The PKCE verifier whose S256 challenge the page sent to `/oauth2/authorize`. */
  readonly codeVerifier: string;
}

export interface SsoSignIn {
  readonly identity: VerifiedIdentity;
  readonly idToken: string;
  readonly expiresInSeconds: number;
}

const codeRefused = () =>
  new GatewayError('The sign-in with your identity provider did not complete, or has expired: sign in again.', {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_sso_code',
    param: 'code',
  });

const poolUnavailable = () =>
  new GatewayError('The sign-in service did not respond: try again in a moment.', {
    status: 503,
    type: 'server_error',
    code: 'sso_unavailable',
  });

/**
 * Cognito's token endpoint (`POST <domain>/oauth2/token`, form-encoded): a public client with PKCE
 * sends no secret, only the code, its verifier and the same `redirect_uri` as the authorize request.
 * Any 4xx (`invalid_grant`, `invalid_client`, …) means this code signs no one in.
 */
const exchangeCode = async (sso: SsoSettings, input: SsoCode): Promise<{ idToken: string; expiresIn: number }> => {
  let response: Response;
  try {
    response = await fetch(`${sso.domain}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: sso.clientId,
        code: input.code,
        redirect_uri: sso.redirectUri,
        code_verifier: input.codeVerifier,
      }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw poolUnavailable();
  }
  const body = (await response.json().catch(() => ({}))) as { id_token?: unknown; expires_in?: unknown };
  if (response.status >= 500) throw poolUnavailable();
  if (!response.ok || typeof body.id_token !== 'string') throw codeRefused();
  return { idToken: body.id_token, expiresIn: typeof body.expires_in === 'number' ? body.expires_in : 3600 };
};

/**
 * A federated sign-in: the code is exchanged for the pool's tokens and the ID token is verified as
 * any console token is (signature, issuer, token use, expiry, a verified address), with the SSO
 * client as its audience. A token for any other client is refused.
 */
export const ssoSignIn = async (pool: CognitoSettings, sso: SsoSettings, input: SsoCode): Promise<SsoSignIn> => {
  const { idToken, expiresIn } = await exchangeCode(sso, input);
  const identity = await verifiedIdentity({ ...pool, clientId: sso.clientId }, idToken);
  if (!identity) throw codeRefused();
  return { identity, idToken, expiresInSeconds: expiresIn };
};
