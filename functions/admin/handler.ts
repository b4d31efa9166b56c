import { methodNotAllowed, unknownUrl } from '../shared/errors.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { onDemand, type Route } from '../shared/middleware/on-demand-route.js';
import { operatorPrincipal } from './operator-session.js';

const accounts = () => import('./accounts.js');
const keys = () => import('./keys.js');
const channels = () => import('./channels.js');
const models = () => import('./models.js');
const members = () => import('./members.js');

/** The admin API (DESIGN §3.2), by `METHOD resource` as API Gateway names the matched route. */
const adminRoutes: Readonly<Record<string, Route>> = {
  'POST /admin/v1/accounts': onDemand(async () => (await accounts()).create),
  'GET /admin/v1/accounts': onDemand(async () => (await accounts()).list),
  'GET /admin/v1/accounts/{id}': onDemand(async () => (await accounts()).get),
  'PATCH /admin/v1/accounts/{id}': onDemand(async () => (await accounts()).update),
  'DELETE /admin/v1/accounts/{id}': onDemand(async () => (await import('./delete-account.js')).remove),

  'POST /admin/v1/keys': onDemand(async () => (await keys()).create),
  'GET /admin/v1/keys': onDemand(async () => (await keys()).list),
  'GET /admin/v1/keys/{id}': onDemand(async () => (await keys()).get),
  'PATCH /admin/v1/keys/{id}': onDemand(async () => (await keys()).update),
  'DELETE /admin/v1/keys/{id}': onDemand(async () => (await keys()).remove),

  'PUT /admin/v1/channels/{id}': onDemand(async () => (await channels()).put),
  'GET /admin/v1/channels': onDemand(async () => (await channels()).list),
  'GET /admin/v1/channels/{id}': onDemand(async () => (await channels()).get),
  'DELETE /admin/v1/channels/{id}': onDemand(async () => (await channels()).remove),

  'PUT /admin/v1/models/{model}': onDemand(async () => (await models()).put),
  'GET /admin/v1/models': onDemand(async () => (await models()).list),
  'GET /admin/v1/models/{model}': onDemand(async () => (await models()).get),
  'DELETE /admin/v1/models/{model}': onDemand(async () => (await models()).remove),

  'GET /admin/v1/usage': onDemand(async () => (await import('./usage.js')).list),
  'GET /admin/v1/metrics': onDemand(async () => (await import('./metrics.js')).summary),
  'POST /admin/v1/apply': onDemand(async () => (await import('./apply.js')).apply),

  'GET /admin/v1/members': onDemand(async () => (await members()).list),
  'PUT /admin/v1/members/{id}': onDemand(async () => (await members()).put),
  'DELETE /admin/v1/members/{id}': onDemand(async () => (await members()).remove),
};

const allowedMethods = (resource: string): string[] =>
  Object.keys(adminRoutes)
    .filter((route) => route.endsWith(` ${resource}`))
    .map((route) => route.slice(0, route.indexOf(' ')));

/**
 * Every `/admin/v1` route: one function, since they share the store and are rarely called. An admin
 * key or an operator's console session may call it. Since nearly every admin call meets a cold
 * start, each route's module loads on its first request (`onDemand`).
 */
export const handler = gatewayHandler(
  { auth: 'admin', optionalJsonBody: true, sessionPrincipal: operatorPrincipal },
  async (request) => {
    const { httpMethod, resource, path } = request.event;
    const route = adminRoutes[`${httpMethod} ${resource}`];
    if (route) return route(request);
    // Only reached when the API routes a pair this table lacks: answer as the fallback function would.
    const allowed = allowedMethods(resource);
    if (allowed.length > 0) throw methodNotAllowed(httpMethod, path, allowed);
    throw unknownUrl(httpMethod, path);
  },
);
