import { callCognito, type CognitoCall } from './cognito-api.js';
import type { CognitoSettings } from './console-user.js';

export type CognitoSignIn =
  | {
      readonly kind: 'signed-in';
      readonly idToken: string;
      readonly expiresInSeconds: number;
      /** Whether this sign-in passed a TOTP code (a challenge, or a setup just verified). */
      readonly mfa: boolean;
    }
  | { readonly kind: 'new-password-required' }
  | { readonly kind: 'mfa-code-required' }
  | {
      readonly kind: 'mfa-setup';
      /** The TOTP secret (base32) for the user's authenticator app. */
      readonly secret: string;
      /** Cognito's MFA_SETUP session (with the user name), to be sent back with the first code. */
      readonly session?: string;
    }
  | { readonly kind: 'refused'; readonly reason: 'credentials' | 'code' | 'throttled' };

export interface CognitoSignInInput {
  readonly email: string;
  readonly password: string;
  readonly newPassword?: string;
  /** A TOTP code: the answer to SOFTWARE_TOKEN_MFA, or the first code of a setup. */
  readonly mfaCode?: string;
  /** The `session` of an earlier `mfa-setup` outcome that came from Cognito's MFA_SETUP challenge. */
  readonly mfaSession?: string;
  /** A sign-in without a TOTP code does not end in tokens: it starts TOTP setup instead. */
  readonly requireMfa: boolean;
}

interface AuthenticationAnswer {
  readonly AuthenticationResult?: {
    readonly IdToken?: string;
    readonly AccessToken?: string;
    readonly ExpiresIn?: number;
  };
  readonly ChallengeName?: string;
  readonly ChallengeParameters?: Readonly<Record<string, string>>;
  readonly Session?: string;
}

const refused = (reason: 'credentials' | 'code' | 'throttled'): CognitoSignIn => ({ kind: 'refused', reason });

/** A refusal by Cognito's error name: a wrong code is told apart from wrong credentials. */
const refusal = (call: CognitoCall<unknown> & { ok: false }): CognitoSignIn => {
  switch (call.type) {
    case 'CodeMismatchException':
    case 'ExpiredCodeException':
    case 'EnableSoftwareTokenMFAException':
      return refused('code');
    case 'TooManyRequestsException':
    case 'LimitExceededException':
    case 'TooManyFailedAttemptsException':
      return refused('throttled');
    default:
      return refused('credentials');
  }
};

/** The MFA_SETUP session travels through the page with the user name the answer needs. */
const packSession = (username: string, session: string): string =>
  Buffer.from(JSON.stringify([username, session])).toString('base64url');
const unpackSession = (packed: string): [string, string] | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(packed, 'base64url').toString());
    return Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')
      ? (value as [string, string])
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Signs a user in to the stack's pool with e-mail and password on the server's side, so the page
 * talks only to its own origin. Each step is stateless: the page sends the password again with the
 * next answer (a new password, a TOTP code), except across Cognito's MFA_SETUP challenge, whose
 * session (valid a few minutes) it carries back.
 *
 * - NEW_PASSWORD_REQUIRED (a user an operator created) is answered with `newPassword`.
 * - SOFTWARE_TOKEN_MFA (TOTP is on) is answered with `mfaCode`.
 * - MFA_SETUP (the pool requires MFA, the user has none): AssociateSoftwareToken gives the secret;
 *   the next call verifies the first code (VerifySoftwareToken) and answers the challenge.
 * - Tokens without MFA when `requireMfa`: the same setup with the user's access token, and TOTP
 *   made the user's MFA (SetUserMFAPreference) once the first code is verified.
 */
export const cognitoSignIn = async (settings: CognitoSettings, input: CognitoSignInInput): Promise<CognitoSignIn> => {
  const clientId = settings.clientId;
  const respond = (challenge: string, session: string | undefined, responses: Record<string, string>) =>
    callCognito<AuthenticationAnswer>(settings, 'RespondToAuthChallenge', {
      ChallengeName: challenge,
      ClientId: clientId,
      Session: session,
      ChallengeResponses: responses,
    });

  let mfa = false;
  let call: CognitoCall<AuthenticationAnswer>;
  const setup = input.mfaSession === undefined ? undefined : unpackSession(input.mfaSession);
  if (input.mfaSession !== undefined) {
    if (!setup || !input.mfaCode) return refused('code');
    const [username, session] = setup;
    const verified = await callCognito<{ Status?: string; Session?: string }>(settings, 'VerifySoftwareToken', {
      Session: session,
      UserCode: input.mfaCode,
      FriendlyDeviceName: 'model-gateway console',
    });
    if (!verified.ok) return refusal(verified);
    if (verified.body.Status !== 'SUCCESS') return refused('code');
    mfa = true;
    call = await respond('MFA_SETUP', verified.body.Session, { USERNAME: username });
  } else {
    call = await callCognito<AuthenticationAnswer>(settings, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: clientId,
      AuthParameters: { USERNAME: input.email, PASSWORD: input.password },
    });
  }

  // A sign-in meets at most a new password, then an MFA step; the bound only guards against a loop.
  for (let step = 0; step < 4; step += 1) {
    if (!call.ok) return refusal(call);
    const answer = call.body;
    const username = answer.ChallengeParameters?.USER_ID_FOR_SRP ?? input.email;
    switch (answer.ChallengeName) {
      case undefined:
        return tokens(settings, answer, input, mfa);
      case 'NEW_PASSWORD_REQUIRED':
        if (!input.newPassword) return { kind: 'new-password-required' };
        call = await respond(answer.ChallengeName, answer.Session, {
          USERNAME: username,
          NEW_PASSWORD: input.newPassword,
        });
        break;
      case 'SOFTWARE_TOKEN_MFA':
        if (!input.mfaCode) return { kind: 'mfa-code-required' };
        mfa = true;
        call = await respond(answer.ChallengeName, answer.Session, {
          USERNAME: username,
          SOFTWARE_TOKEN_MFA_CODE: input.mfaCode,
        });
        break;
      case 'MFA_SETUP': {
        const associated = await callCognito<{ SecretCode?: string; Session?: string }>(
          settings,
          'AssociateSoftwareToken',
          { Session: answer.Session },
        );
        if (!associated.ok) return refusal(associated);
        const { SecretCode, Session } = associated.body;
        if (!SecretCode || !Session) return refused('credentials');
        return { kind: 'mfa-setup', secret: SecretCode, session: packSession(username, Session) };
      }
      default:
        // SMS, e-mail or custom challenges: the pool offers none of them to the console.
        return refused('credentials');
    }
  }
  return refused('credentials');
};

/** Tokens, or for a sign-in that must have MFA and had none, TOTP setup on the user's access token. */
const tokens = async (
  settings: CognitoSettings,
  answer: AuthenticationAnswer,
  input: CognitoSignInInput,
  mfa: boolean,
): Promise<CognitoSignIn> => {
  const result = answer.AuthenticationResult;
  if (!result?.IdToken) return refused('credentials');
  const signedIn = (withMfa: boolean): CognitoSignIn => ({
    kind: 'signed-in',
    idToken: result.IdToken!,
    expiresInSeconds: result.ExpiresIn ?? 3600,
    mfa: withMfa,
  });
  if (mfa || !input.requireMfa) return signedIn(mfa);
  if (!result.AccessToken) return refused('credentials');
  const accessToken = result.AccessToken;
  if (!input.mfaCode) {
    const associated = await callCognito<{ SecretCode?: string }>(settings, 'AssociateSoftwareToken', {
      AccessToken: accessToken,
    });
    if (!associated.ok) return refusal(associated);
    if (!associated.body.SecretCode) return refused('credentials');
    return { kind: 'mfa-setup', secret: associated.body.SecretCode };
  }
  const verified = await callCognito<{ Status?: string }>(settings, 'VerifySoftwareToken', {
    AccessToken: accessToken,
    UserCode: input.mfaCode,
    FriendlyDeviceName: 'model-gateway console',
  });
  if (!verified.ok) return refusal(verified);
  if (verified.body.Status !== 'SUCCESS') return refused('code');
  const preferred = await callCognito(settings, 'SetUserMFAPreference', {
    AccessToken: accessToken,
    SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
  });
  if (!preferred.ok) return refusal(preferred);
  return signedIn(true);
};
