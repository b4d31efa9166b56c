/** The federated sign-in the stack offers (`GET /console/api/config` → `sso`). */
export interface SsoConfig {
  readonly provider: string;
  readonly clientId: string;
  /** The pool's sign-in domain as a base URL. */
  readonly domain: string;
  readonly redirectUri: string;
}

/** Kept in sessionStorage from the redirect to the return: this tab only, gone when it closes. */
const PENDING = 'gateway-console-sso';

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const randomText = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/**
 * Sends the browser to the pool's authorize endpoint, straight to the identity provider, with a
 * random `state` (the return must carry it back) and a PKCE S256 challenge (only this tab holds the
 * verifier, so a code caught on the way is of no use).
 */
export const startSso = async (sso: SsoConfig): Promise<void> => {
  const state = randomText();
  const verifier = randomText();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier }));
  const parameters = new URLSearchParams({
    response_type: 'code',
    client_id: sso.clientId,
    redirect_uri: sso.redirectUri,
    identity_provider: sso.provider,
    scope: 'openid email',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${sso.domain}/oauth2/authorize?${parameters.toString()}`);
};

export type SsoReturn =
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'code'; readonly code: string; readonly codeVerifier: string };

/**
 * What the address says on the return from the sign-in domain: a code whose `state` is the one this
 * tab sent, a refusal, or nothing to do. The pending state is used once, and the query is taken off
 * the address so a reload does not send the code again.
 */
export const ssoReturn = (): SsoReturn => {
  const parameters = new URLSearchParams(location.search);
  const code = parameters.get('code');
  const error = parameters.get('error');
  if (!code && !error) return { kind: 'none' };
  const pending = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  if (error) return { kind: 'refused', message: `The identity provider did not sign you in (${error}).` };
  const { state, verifier } = (pending ? JSON.parse(pending) : {}) as { state?: string; verifier?: string };
  if (!state || !verifier || parameters.get('state') !== state)
    return { kind: 'refused', message: 'This sign-in was not started from this tab: sign in again.' };
  return { kind: 'code', code: code!, codeVerifier: verifier };
};
