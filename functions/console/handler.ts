import { methodNotAllowed, unknownUrl } from '../shared/errors.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { onDemand, type Route } from '../shared/middleware/on-demand-route.js';
import { redirect, webAsset } from './web-assets.js';

const keys = () => import('./keys.js');
const session = () => import('./session.js');

/**
 * The console: its page and the API it calls. The API authenticates each request itself (a console
 * session, not an API key) and every route applies the rules of `authorize.ts`. A cold start usually
 * serves the page first: the API's routes (their schemas, their store reads) load on their first
 * request (`onDemand`).
 */
const consoleRoutes: Readonly<Record<string, Route>> = {
  // `/console` → `/console/`, so that the page's relative links resolve under it (with any stage prefix).
  'GET /console': ({ event }) =>
    event.path.endsWith('/') ? webAsset(undefined) : Promise.resolve(redirect('console/')),
  'GET /console/{asset}': ({ pathParameters }) => webAsset(pathParameters.asset),
  'GET /console/api/config': onDemand(async () => (await session()).config),
  'POST /console/api/session': onDemand(async () => (await session()).signIn),
  'DELETE /console/api/session': onDemand(async () => (await session()).signOut),
  'GET /console/api/me': onDemand(async () => (await import('./me.js')).me),
  'GET /console/api/keys': onDemand(async () => (await keys()).list),
  'POST /console/api/keys': onDemand(async () => (await keys()).create),
  'DELETE /console/api/keys/{id}': onDemand(async () => (await keys()).revoke),
  'GET /console/api/models': onDemand(async () => (await import('./models.js')).list),
  'GET /console/api/usage': onDemand(async () => (await import('./usage.js')).list),
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
