import type { CognitoSettings } from './console-user.js';

export type CognitoSignIn =
  | { readonly kind: 'signed-in'; readonly idToken: string; readonly expiresInSeconds: number }
  | { readonly kind: 'new-password-required' }
  | { readonly kind: 'refused' };

interface AuthenticationAnswer {
  readonly AuthenticationResult?: { readonly IdToken?: string; readonly ExpiresIn?: number };
  readonly ChallengeName?: string;
  readonly Session?: string;
}

/** One call of Cognito's public (unsigned) user-pool API, as its JSON 1.1 protocol has it. */
const callCognito = async (
  settings: CognitoSettings,
  action: string,
  body: object,
): Promise<AuthenticationAnswer | undefined> => {
  const response = await fetch(`https://cognito-idp.${settings.region}.amazonaws.com/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityProviderService.${action}`,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) return undefined;
  return (await response.json()) as AuthenticationAnswer;
};

const outcome = (answer: AuthenticationAnswer | undefined): CognitoSignIn => {
  const result = answer?.AuthenticationResult;
  if (result?.IdToken)
    return { kind: 'signed-in', idToken: result.IdToken, expiresInSeconds: result.ExpiresIn ?? 3600 };
  if (answer?.ChallengeName === 'NEW_PASSWORD_REQUIRED') return { kind: 'new-password-required' };
  return { kind: 'refused' };
};

/**
 * Signs a user in to the stack's pool with e-mail and password on the server's side, so the page
 * talks only to its own origin. A user an operator created signs in first with the temporary
 * password and a `newPassword`, which answers Cognito's NEW_PASSWORD_REQUIRED challenge.
 */
export const cognitoSignIn = async (
  settings: CognitoSettings,
  email: string,
  password: string,
  newPassword: string | undefined,
): Promise<CognitoSignIn> => {
  const first = await callCognito(settings, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: settings.clientId,
    AuthParameters: { USERNAME: email, PASSWORD: password },
  });
  if (first?.ChallengeName !== 'NEW_PASSWORD_REQUIRED' || !newPassword) return outcome(first);
  return outcome(
    await callCognito(settings, 'RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: settings.clientId,
      Session: first.Session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: newPassword },
    }),
  );
};
