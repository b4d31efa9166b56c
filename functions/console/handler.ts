import { methodNotAllowed, unknownUrl } from '../shared/errors.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { gatewayHandler, type GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as keys from './keys.js';
import { me } from './me.js';
import * as models from './models.js';
import * as session from './session.js';
import * as usage from './usage.js';
import { redirect, webAsset } from './web-assets.js';

type ConsoleRoute = (request: GatewayRequest<unknown>) => Promise<GatewayResponse>;

/**
 * The console: its page and the API it calls. The API authenticates each request itself (a console
 * session, not an API key) and every route applies the rules of `authorize.ts`.
 */
const consoleRoutes: Readonly<Record<string, ConsoleRoute>> = {
  // `/console` → `/console/`, so that the page's relative links resolve under it (with any stage prefix).
  'GET /console': ({ event }) =>
    event.path.endsWith('/') ? webAsset(undefined) : Promise.resolve(redirect('console/')),
  'GET /console/{asset}': ({ pathParameters }) => webAsset(pathParameters.asset),
  'GET /console/api/config': session.config,
  'POST /console/api/session': session.signIn,
  'DELETE /console/api/session': session.signOut,
  'GET /console/api/me': me,
  'GET /console/api/keys': keys.list,
  'POST /console/api/keys': keys.create,
  'DELETE /console/api/keys/{id}': keys.revoke,
  'GET /console/api/models': models.list,
  'GET /console/api/usage': usage.list,
};

const allowedMethods = (resource: string): string[] =>
  Object.keys(consoleRoutes)
    .filter((route) => route.endsWith(` ${resource}`))
    .map((route) => route.slice(0, route.indexOf(' ')));

export const handler = gatewayHandler({ auth: false, optionalJsonBody: true }, async (request) => {
  const { httpMethod, resource, path } = request.event;
  const route = consoleRoutes[`${httpMethod} ${resource}`];
  if (route) return route(request);
  const allowed = allowedMethods(resource);
  if (allowed.length > 0) throw methodNotAllowed(httpMethod, path, allowed);
  throw unknownUrl(httpMethod, path);
});
