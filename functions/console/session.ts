import * as z from '../shared/schemas/zod.js';
import { lazySchema, type LazyOutput } from '../shared/schemas/lazy-schema.js';
import { parseWith } from '../admin/parse-with.js';
import { hashApiKey } from '../shared/auth/api-key.js';
import { assertIpAllowed } from '../shared/auth/ip-allow-list.js';
import { resolvePrincipal } from '../shared/auth/principal.js';
import { cognitoSignIn, type CognitoSignIn } from '../shared/console/cognito-sign-in.js';
import { cognitoSettings, consoleAuthMode, ssoSettings, type ConsoleUser } from '../shared/console/console-user.js';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../shared/console/local-passwords.js';
import { localSessions } from '../shared/console/local-sessions.js';
import { adminMfaRequired, recordMfaSignIn } from '../shared/console/mfa-sign-ins.js';
import { ADMIN_KEY_USER_PREFIX } from '../shared/console/resolve-console-user.js';
import { localSignInLimits } from '../shared/console/sign-in-limits.js';
import { ssoSignIn, type SsoCode } from '../shared/console/sso-sign-in.js';
import { GatewayError, forbidden, invalidApiKey } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { getMember, memberId, putMember } from '../shared/store/members.js';
import { bearerToken, requireUser, sourceIpOf } from './console-request.js';
import { totpSetupView } from './totp-setup.js';

const password = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(256)));
const totpCode = lazySchema(() => z.string().check(z.regex(/^\d{6}$/)));

/**
 * Sign in with an e-mail address and password (and a TOTP code), with the code of a federated sign-in
 * (and its PKCE verifier), or (operators, locally) with an admin key.
 */
const signInBody = lazySchema(() =>
  z.union([
    z.strictObject({
      email: z.email().check(z.maxLength(254)),
      password: password(),
      newPassword: z.optional(z.string().check(z.minLength(8), z.maxLength(256))),
      mfaCode: z.optional(totpCode()),
      mfaSession: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
    }),
    z.strictObject({ key: z.string().check(z.minLength(1), z.maxLength(300)) }),
    z.strictObject({
      code: z.string().check(z.minLength(1), z.maxLength(2048)),
      // RFC 7636: 43 to 128 characters of [A-Za-z0-9-._~].
      codeVerifier: z.string().check(z.regex(/^[A-Za-z0-9\-._~]{43,128}$/)),
    }),
  ]),
);

type SignInBody = LazyOutput<typeof signInBody>;
type PasswordSignIn = Extract<SignInBody, { email: string }>;

const wrongCredentials = () => invalidApiKey('The e-mail address or password is not right.');

const userView = (user: ConsoleUser) => ({ id: user.id, accountId: user.accountId, role: user.role });

/**
 * GET /console/api/config: what the sign-in page needs to know; nothing secret. `sso` (deployed
 * stages with `-c ssoProvider`) holds the parts of the pool's authorize URL.
 */
export const config = async () => {
  const mode = consoleAuthMode();
  const sso = mode === 'cognito' ? ssoSettings() : undefined;
  return json(200, { auth: mode ?? 'disabled', ...(sso ? { sso } : {}) });
};

const signInWithKey = async (
  key: string,
  sourceIp: string | undefined,
): Promise<{ user: ConsoleUser; keyHash: string }> => {
  const principal = await resolvePrincipal(key).catch(() => undefined);
  if (!principal || principal.role !== 'admin') throw invalidApiKey('Only an admin key signs in to the console.');
  assertIpAllowed(principal, sourceIp);
  return {
    user: { id: `${ADMIN_KEY_USER_PREFIX}${principal.keyId}`, accountId: principal.accountId, role: 'admin' },
    keyHash: hashApiKey(key),
  };
};

/** A member's password; a hash made at an older scrypt cost is made again at today's. */
const signInWithPassword = async (body: PasswordSignIn): Promise<ConsoleUser> => {
  const member = await getMember(body.email);
  // The hash is computed for an unknown address too, so timing does not tell which addresses exist.
  const stored = member?.passwordHash ?? (await decoyHash());
  const matches = await verifyPassword(body.password, stored);
  if (!member || !member.passwordHash || !matches) throw wrongCredentials();
  if (needsRehash(member.passwordHash)) {
    await putMember({
      ...member,
      passwordHash: await hashPassword(body.password),
      updatedAt: new Date().toISOString(),
    });
  }
  return { id: member.id, accountId: member.accountId, role: member.role };
};

/**
 * The local runtime's sign-in, behind the attempt limits: a locked-out user or address gets 429
 * with `Retry-After` before any password is checked.
 */
const signInLocally = async (input: SignInBody, sourceIp: string | undefined) => {
  const userKey = 'email' in input ? memberId(input.email) : undefined;
  localSignInLimits.assertAllowed(userKey, sourceIp);
  try {
    if ('key' in input) {
      const { user, keyHash } = await signInWithKey(input.key, sourceIp);
      return { user, session: localSessions.issue(user, keyHash) };
    }
    if ('code' in input) throw forbidden('This console has no single sign-on: sign in with a password.');
    const user = await signInWithPassword(input);
    localSignInLimits.recordSuccess(user.id);
    return { user, session: localSessions.issue(user) };
  } catch (error) {
    if (error instanceof GatewayError && error.status === 401) localSignInLimits.recordFailure(userKey, sourceIp);
    throw error;
  }
};

const challengeError = (message: string, code: string, param: string) =>
  new GatewayError(message, { status: 401, type: 'invalid_request_error', code, param });

/** What each Cognito outcome that is not a session means to the page. */
const notSignedIn = (result: Exclude<CognitoSignIn, { kind: 'signed-in' | 'mfa-setup' }>): GatewayError => {
  switch (result.kind) {
    case 'new-password-required':
      return challengeError(
        'Choose a new password: this account was created with a temporary one.',
        'new_password_required',
        'newPassword',
      );
    case 'mfa-code-required':
      return challengeError('Enter the 6-digit code from your authenticator app.', 'mfa_code_required', 'mfaCode');
    case 'refused':
      if (result.reason === 'code')
        return challengeError('The authenticator code is not right, or has expired.', 'invalid_mfa_code', 'mfaCode');
      if (result.reason === 'throttled')
        return new GatewayError('Too many sign-in attempts: wait a few minutes and try again.', {
          status: 429,
          type: 'requests',
          code: 'rate_limit_exceeded',
          headers: { 'retry-after': '60' },
        });
      return wrongCredentials();
    default: {
      const unreachable: never = result;
      throw new Error(`unknown sign-in outcome ${String(unreachable)}`);
    }
  }
};

/**
 * The deployed sign-in (the stack's user pool). Operators (`admin`) must pass TOTP unless
 * `GATEWAY_CONSOLE_ADMIN_MFA=optional`: one without it set up is led through the setup first.
 */
const signInWithCognito = async (input: PasswordSignIn) => {
  const member = await getMember(input.email);
  const result = await cognitoSignIn(cognitoSettings()!, {
    ...input,
    requireMfa: member?.role === 'admin' && adminMfaRequired(),
  });
  if (result.kind === 'mfa-setup') return json(200, { mfaSetup: totpSetupView(input.email, result) });
  if (result.kind !== 'signed-in') throw notSignedIn(result);
  if (!member) throw forbidden('This user is not a member of any gateway account. Ask an operator to add you.');
  if (result.mfa) await recordMfaSignIn(member.id, result.idToken);
  return json(201, {
    token: result.idToken,
    expiresAt: new Date(Date.now() + result.expiresInSeconds * 1000).toISOString(),
    user: userView({ id: member.id, accountId: member.accountId, role: member.role }),
  });
};

/**
 * A federated sign-in opens the same session as a password. Operators held to MFA pass only when
 * the ID token's `amr` says the provider used more than one factor; otherwise they sign in with a
 * password and TOTP, or the stack relaxes `consoleAdminMfa`.
 */
const signInWithSso = async (input: SsoCode) => {
  const { identity, idToken, expiresInSeconds } = await ssoSignIn(cognitoSettings()!, ssoSettings()!, input);
  const member = await getMember(identity.email);
  if (!member) throw forbidden('This user is not a member of any gateway account. Ask an operator to add you.');
  if (member.role === 'admin' && adminMfaRequired()) {
    if (!identity.mfa)
      throw forbidden(
        'Operators sign in with their password and an authenticator code: the identity provider did not report a second factor. An operator may relax this with -c consoleAdminMfa=optional.',
      );
    await recordMfaSignIn(member.id, idToken);
  }
  return json(201, {
    token: idToken,
    expiresAt: new Date(Date.now() + expiresInSeconds * 1000).toISOString(),
    user: userView({ id: member.id, accountId: member.accountId, role: member.role }),
  });
};

/**
 * POST /console/api/session → 201 `{token, expiresAt, user}` (the token goes in `Authorization:
 * Bearer`), or 200 `{mfaSetup: {secret, otpauthUri, session?}}` when TOTP must be set up first: the
 * page shows the secret and sends the same body again with the first `mfaCode` (and `mfaSession`).
 */
export const signIn = async (request: GatewayRequest<unknown>) => {
  const input = parseWith(signInBody, request.body ?? {});
  const mode = consoleAuthMode();
  if (mode === 'local') {
    const { user, session } = await signInLocally(input, sourceIpOf(request));
    return json(201, {
      token: session.token,
      expiresAt: new Date(session.expiresAt).toISOString(),
      user: userView(user),
    });
  }
  if (mode === 'cognito' && 'email' in input) return signInWithCognito(input);
  if (mode === 'cognito' && 'code' in input && ssoSettings()) return signInWithSso(input);
  throw forbidden(
    mode === 'cognito' ? 'Sign in with your e-mail address and password.' : 'The console has no sign-in configured.',
  );
};

/** DELETE /console/api/session: ends a local session (a Cognito token simply expires). */
export const signOut = async (request: GatewayRequest<unknown>) => {
  await requireUser(request);
  const token = bearerToken(request);
  if (token) localSessions.end(token);
  return json(200, { signedOut: true });
};
