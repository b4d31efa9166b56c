import { consoleUserActor } from '../shared/audit/audit-actor.js';
import { assertIpAllowed } from '../shared/auth/ip-allow-list.js';
import type { ConsoleUser } from '../shared/console/console-user.js';
import { resolveConsoleUser } from '../shared/console/resolve-console-user.js';
import { invalidApiKey } from '../shared/errors.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';

/** The bearer token of a request, if any. Never a cookie: a cross-site request cannot carry it. */
export const bearerToken = (request: GatewayRequest<unknown>): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/** Where the request comes from (API Gateway's source address; the local runtime fills in the socket's). */
export const sourceIpOf = (request: GatewayRequest<unknown>): string | undefined =>
  request.event.requestContext?.identity?.sourceIp ?? undefined;

/**
 * The signed-in user of a console API request; 401 without a valid session, 403 from outside the
 * IP allow-list of the admin key an operator signed in with.
 */
export const requireUser = async (request: GatewayRequest<unknown>): Promise<ConsoleUser> => {
  const token = bearerToken(request);
  if (!token) throw invalidApiKey('Sign in first: pass the console session as "Authorization: Bearer <token>".');
  const user = await resolveConsoleUser(token);
  assertIpAllowed({ allowedIps: user.allowedIps ?? null }, sourceIpOf(request));
  // The request's log line names who made it, as an admin request's does.
  request.noteActor?.(consoleUserActor(user));
  return user;
};
