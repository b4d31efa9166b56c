import type { ConsoleUser } from '../shared/console/console-user.js';
import { resolveConsoleUser } from '../shared/console/resolve-console-user.js';
import { invalidApiKey } from '../shared/errors.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';

/** The bearer token of a request, if any. Never a cookie: a cross-site request cannot carry it. */
export const bearerToken = (request: GatewayRequest<unknown>): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/** The signed-in user of a console API request; 401 without a valid session. */
export const requireUser = async (request: GatewayRequest<unknown>): Promise<ConsoleUser> => {
  const token = bearerToken(request);
  if (!token) throw invalidApiKey('Sign in first: pass the console session as "Authorization: Bearer <token>".');
  return resolveConsoleUser(token);
};
