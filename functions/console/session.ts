import * as z from '../shared/schemas/zod.js';
import { lazySchema, type LazyOutput } from '../shared/schemas/lazy-schema.js';
import { parseWith } from '../admin/parse-with.js';
import { resolvePrincipal } from '../shared/auth/principal.js';
import { cognitoSignIn } from '../shared/console/cognito-sign-in.js';
import { cognitoSettings, consoleAuthMode, type ConsoleUser } from '../shared/console/console-user.js';
import { verifyPassword } from '../shared/console/local-passwords.js';
import { localSessions } from '../shared/console/local-sessions.js';
import { ADMIN_KEY_USER_PREFIX } from '../shared/console/resolve-console-user.js';
import { GatewayError, forbidden, invalidApiKey } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { getMember } from '../shared/store/members.js';
import { bearerToken, requireUser } from './console-request.js';

const password = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(256)));

/** Sign in with an e-mail address and password, or (operators, locally) with an admin key. */
const signInBody = lazySchema(() =>
  z.union([
    z.strictObject({
      email: z.email().check(z.maxLength(254)),
      password: password(),
      newPassword: z.optional(z.string().check(z.minLength(8), z.maxLength(256))),
    }),
    z.strictObject({ key: z.string().check(z.minLength(1), z.maxLength(300)) }),
  ]),
);

const wrongCredentials = () => invalidApiKey('The e-mail address or password is not right.');

const userView = (user: ConsoleUser) => ({ id: user.id, accountId: user.accountId, role: user.role });

/** GET /console/api/config: what the sign-in page needs to know; nothing secret. */
export const config = async () => json(200, { auth: consoleAuthMode() ?? 'disabled' });

const signInLocally = async (body: LazyOutput<typeof signInBody>): Promise<ConsoleUser> => {
  if ('key' in body) {
    const principal = await resolvePrincipal(body.key).catch(() => undefined);
    if (!principal || principal.role !== 'admin') throw invalidApiKey('Only an admin key signs in to the console.');
    return { id: `${ADMIN_KEY_USER_PREFIX}${principal.keyId}`, accountId: principal.accountId, role: 'admin' };
  }
  const member = await getMember(body.email);
  // The hash is computed for an unknown address too, so timing does not tell which addresses exist.
  const matches = await verifyPassword(body.password, member?.passwordHash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAA');
  if (!member || !matches) throw wrongCredentials();
  return { id: member.id, accountId: member.accountId, role: member.role };
};

/** POST /console/api/session → `{token, expiresAt, user}`; the token goes in `Authorization: Bearer`. */
export const signIn = async ({ body }: GatewayRequest<unknown>) => {
  const input = parseWith(signInBody, body ?? {});
  const mode = consoleAuthMode();
  if (mode === 'local') {
    const user = await signInLocally(input);
    const session = localSessions.issue(user);
    return json(201, {
      token: session.token,
      expiresAt: new Date(session.expiresAt).toISOString(),
      user: userView(user),
    });
  }
  if (mode === 'cognito' && 'email' in input) {
    const member = await getMember(input.email);
    const result = await cognitoSignIn(cognitoSettings()!, input.email, input.password, input.newPassword);
    if (result.kind === 'new-password-required') {
      throw new GatewayError('Choose a new password: this account was created with a temporary one.', {
        status: 401,
        type: 'invalid_request_error',
        code: 'new_password_required',
        param: 'newPassword',
      });
    }
    if (result.kind === 'refused') throw wrongCredentials();
    if (!member) throw forbidden('This user is not a member of any gateway account. Ask an operator to add you.');
    return json(201, {
      token: result.idToken,
      expiresAt: new Date(Date.now() + result.expiresInSeconds * 1000).toISOString(),
      user: userView({ id: member.id, accountId: member.accountId, role: member.role }),
    });
  }
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
