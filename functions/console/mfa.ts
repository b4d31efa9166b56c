import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { parseWith } from '../admin/parse-with.js';
import { cognitoSignIn } from '../shared/console/cognito-sign-in.js';
import { cognitoSettings, consoleAuthMode } from '../shared/console/console-user.js';
import { GatewayError, forbidden, invalidApiKey } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { requireUser } from './console-request.js';
import { totpSetupView } from './totp-setup.js';

const mfaBody = lazySchema(() =>
  z.strictObject({
    password: z.string().check(z.minLength(1), z.maxLength(256)),
    mfaCode: z.optional(z.string().check(z.regex(/^\d{6}$/))),
  }),
);

/**
 * POST /console/api/mfa `{password, mfaCode?}`: a signed-in user turns TOTP on. Without a code →
 * `{mfaSetup: {secret, otpauthUri}}`; with the first code from the app → `{mfa: "enabled"}`, and
 * every later sign-in asks for a code. The password is asked again: a session left open on a shared
 * screen cannot bind someone else's authenticator. Deployed stages only (the user pool keeps TOTP).
 */
export const enable = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  const input = parseWith(mfaBody, request.body ?? {});
  if (consoleAuthMode() !== 'cognito')
    throw forbidden('TOTP is offered where the console signs in through the user pool.');
  const result = await cognitoSignIn(cognitoSettings()!, { email: user.id, ...input, requireMfa: true });
  switch (result.kind) {
    case 'mfa-setup':
      return json(200, { mfaSetup: totpSetupView(user.id, result) });
    case 'signed-in':
      return json(200, { mfa: 'enabled' });
    case 'mfa-code-required':
      // TOTP is on already, and the code proves it.
      throw new GatewayError('TOTP is on already: enter a code from your app to confirm.', {
        status: 400,
        type: 'invalid_request_error',
        code: 'mfa_code_required',
        param: 'mfaCode',
      });
    case 'new-password-required':
    case 'refused':
      if (result.kind === 'refused' && result.reason === 'code')
        throw new GatewayError('The authenticator code is not right, or has expired.', {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_mfa_code',
          param: 'mfaCode',
        });
      // Not 401: the session is fine, the password given is not.
      throw new GatewayError('The password is not right.', {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'password',
      });
    default: {
      const unreachable: never = result;
      throw invalidApiKey(String(unreachable));
    }
  }
};
