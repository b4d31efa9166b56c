import type { CognitoSettings } from './console-user.js';

type IdTokenVerifier = { verify(token: string): Promise<Record<string, unknown>> };

const verifiers = new Map<string, IdTokenVerifier>();

/**
 * The e-mail address of a valid Cognito ID token of the console's app client: signature (the pool's
 * JWKS, fetched once and cached by aws-jwt-verify), issuer, audience, token use and expiry are all
 * checked. `undefined` for any token that fails, whatever the reason. aws-jwt-verify (≈ 16 KB) loads
 * with the first token: the admin function serves admin keys far more often than console sessions,
 * and a local console signs in without Cognito.
 */
export const verifiedEmail = async (settings: CognitoSettings, token: string): Promise<string | undefined> => {
  const cacheKey = `${settings.userPoolId}/${settings.clientId}`;
  let verifier = verifiers.get(cacheKey);
  if (!verifier) {
    const { CognitoJwtVerifier } = await import('aws-jwt-verify');
    verifier = CognitoJwtVerifier.create({
      userPoolId: settings.userPoolId,
      tokenUse: 'id',
      clientId: settings.clientId,
    });
    verifiers.set(cacheKey, verifier);
  }
  try {
    const payload = await verifier.verify(token);
    return typeof payload.email === 'string' && payload.email_verified !== false ? payload.email : undefined;
  } catch {
    return undefined;
  }
};
