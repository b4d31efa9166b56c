import { consoleUserActor } from '../shared/audit/audit-actor.js';
import type { AuditActor } from '../shared/store/audit-entry.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { isGatewayError } from '../shared/errors.js';
import type { GatewayResponse } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { memberId } from '../shared/store/members.js';

type Handler = (request: GatewayRequest<unknown>) => Promise<GatewayResponse>;

/**
 * Refusals that mean "these credentials do not sign in": wrong password or key, not a member, too many
 * attempts. A challenge (a new password, a second factor) is a step of a sign-in, not a failure; a
 * malformed body never named anyone.
 */
const FAILED_SIGN_IN_STATUSES = new Set([401, 403, 429]);
const CHALLENGE_CODE = /_required$/;

/**
 * Who tried to sign in, as far as the body says without holding a secret: the e-mail address, for a
 * federated sign-in only that it was one, or for an admin key only that it was one (a key is never recorded, and a mistyped one may be a password).
 */
const claimedActor = (body: unknown): AuditActor => {
  const { email, code } = (body ?? {}) as { email?: unknown; code?: unknown };
  if (typeof email === 'string') return { kind: 'console-user', id: memberId(email) };
  // A federated sign-in names no one until its code is exchanged; a refused one is recorded as such.
  if (typeof code === 'string') return { kind: 'console-user', id: 'sso:unknown' };
  return { kind: 'admin-key', id: 'unknown' };
};

const signedInActor = (response: GatewayResponse): AuditActor | undefined => {
  if (typeof response.body !== 'string') return undefined;
  const id = (JSON.parse(response.body) as { user?: { id?: unknown } }).user?.id;
  return typeof id === 'string' ? consoleUserActor({ id }) : undefined;
};

/**
 * The console's sign-in with its audit records: `console.sign-in` for a session issued,
 * `console.sign-in-failed` for credentials refused. Wraps the route, so that how a sign-in works
 * (passwords, keys, challenges) stays in session.ts.
 */
export const auditedSignIn =
  (signIn: Handler): Handler =>
  async (request) => {
    let response: GatewayResponse;
    try {
      response = await signIn(request);
    } catch (error) {
      if (
        isGatewayError(error) &&
        FAILED_SIGN_IN_STATUSES.has(error.status) &&
        !CHALLENGE_CODE.test(error.code ?? '')
      ) {
        const actor = claimedActor(request.body);
        await recordAudit(request, {
          action: 'console.sign-in-failed',
          actor,
          target: { kind: 'console-user', id: actor.id },
        });
      }
      throw error;
    }
    const actor = response.statusCode < 300 ? signedInActor(response) : undefined;
    if (actor)
      await recordAudit(request, { action: 'console.sign-in', actor, target: { kind: 'console-user', id: actor.id } });
    return response;
  };
