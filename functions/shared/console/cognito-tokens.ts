import { cognitoEndpoint } from './cognito-api.js';
import type { CognitoSettings } from './console-user.js';

type IdTokenVerifier = { verify(token: string): Promise<Record<string, unknown>> };

const verifiers = new Map<string, IdTokenVerifier>();

/** What the console takes from a verified ID token. */
export interface VerifiedIdentity {
  readonly email: string;
  /**
   * The sign-in the token came from: `origin_jti` (the same for every token refreshed from one
   * sign-in), else the token's own `jti`.
   */
  readonly signInId: string | undefined;
  /** Whether the token's `amr` claim says the sign-in used more than one factor (RFC 8176 `mfa`). */
  readonly mfa: boolean;
}

/**
 * Only a verified address is an identity. Cognito writes `email_verified` as a boolean for its own
 * users and may carry a federated provider's value as the string `"true"`; anything else (absent,
 * `false`, `"false"`, `1`, `"TRUE"`) is not verified.
 */
export const isVerified = (claim: unknown): boolean => claim === true || claim === 'true';

/** Reads the pool's JWKS from the emulator when `GATEWAY_CONSOLE_COGNITO_ENDPOINT` names one. */
const jwksFetcher = (settings: CognitoSettings) => ({
  fetch: async (uri: string) => {
    const local = uri.replace(/^https:\/\/cognito-idp\.[^/]+\.amazonaws\.com/, cognitoEndpoint(settings));
    const response = await fetch(local, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
    // aws-jwt-verify parses the body itself: it takes the bytes, as its own fetcher returns them.
    return response.arrayBuffer();
  },
});

/**
 * The identity behind a valid Cognito ID token of the console's app client: signature (the pool's
 * JWKS, fetched once and cached by aws-jwt-verify), issuer, audience, token use and expiry are all
 * checked, and the address must be verified. `undefined` for any token that fails, whatever the
 * reason. aws-jwt-verify (≈ 16 KB) loads with the first token: the admin function serves admin keys
 * far more often than console sessions, and a local console signs in without Cognito.
 */
export const verifiedIdentity = async (
  settings: CognitoSettings,
  token: string,
): Promise<VerifiedIdentity | undefined> => {
  // `settings.clientId` is the audience: the console's client, or the SSO client for federated sign-ins.
  const cacheKey = `${cognitoEndpoint(settings)}/${settings.userPoolId}/${settings.clientId}`;
  let verifier = verifiers.get(cacheKey);
  if (!verifier) {
    const { CognitoJwtVerifier } = await import('aws-jwt-verify');
    const { SimpleJwksCache } = await import('aws-jwt-verify/jwk');
    verifier = CognitoJwtVerifier.create(
      { userPoolId: settings.userPoolId, tokenUse: 'id', clientId: settings.clientId },
      process.env.GATEWAY_CONSOLE_COGNITO_ENDPOINT
        ? { jwksCache: new SimpleJwksCache({ fetcher: jwksFetcher(settings) }) }
        : undefined,
    );
    verifiers.set(cacheKey, verifier);
  }
  try {
    const payload = await verifier.verify(token);
    if (typeof payload.email !== 'string' || !isVerified(payload.email_verified)) return undefined;
    const signInId = [payload.origin_jti, payload.jti].find((value) => typeof value === 'string') as string | undefined;
    const mfa = Array.isArray(payload.amr) && payload.amr.includes('mfa');
    return { email: payload.email, signInId, mfa };
  } catch {
    return undefined;
  }
};
