import { methodNotAllowed, unknownUrl } from '../shared/errors.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { gatewayHandler, type GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as accounts from './accounts.js';
import { apply } from './apply.js';
import * as accountDeletion from './delete-account.js';
import * as metrics from './metrics.js';
import * as channels from './channels.js';
import * as keys from './keys.js';
import * as members from './members.js';
import * as models from './models.js';
import { operatorPrincipal } from './operator-session.js';
import * as usage from './usage.js';

type AdminRoute = (request: GatewayRequest<unknown>) => Promise<GatewayResponse>;

/** The admin API (DESIGN §3.2), by `METHOD resource` as API Gateway names the matched route. */
const adminRoutes: Readonly<Record<string, AdminRoute>> = {
  'POST /admin/v1/accounts': accounts.create,
  'GET /admin/v1/accounts': accounts.list,
  'GET /admin/v1/accounts/{id}': accounts.get,
  'PATCH /admin/v1/accounts/{id}': accounts.update,
  'DELETE /admin/v1/accounts/{id}': accountDeletion.remove,

  'POST /admin/v1/keys': keys.create,
  'GET /admin/v1/keys': keys.list,
  'GET /admin/v1/keys/{id}': keys.get,
  'PATCH /admin/v1/keys/{id}': keys.update,
  'DELETE /admin/v1/keys/{id}': keys.remove,

  'PUT /admin/v1/channels/{id}': channels.put,
  'GET /admin/v1/channels': channels.list,
  'GET /admin/v1/channels/{id}': channels.get,
  'DELETE /admin/v1/channels/{id}': channels.remove,

  'PUT /admin/v1/models/{model}': models.put,
  'GET /admin/v1/models': models.list,
  'GET /admin/v1/models/{model}': models.get,
  'DELETE /admin/v1/models/{model}': models.remove,

  'GET /admin/v1/usage': usage.list,
  'GET /admin/v1/metrics': metrics.summary,
  'POST /admin/v1/apply': apply,

  'GET /admin/v1/members': members.list,
  'PUT /admin/v1/members/{id}': members.put,
  'DELETE /admin/v1/members/{id}': members.remove,
};

const allowedMethods = (resource: string): string[] =>
  Object.keys(adminRoutes)
    .filter((route) => route.endsWith(` ${resource}`))
    .map((route) => route.slice(0, route.indexOf(' ')));

/**
 * Every `/admin/v1` route: one function, since they share the store and are rarely called. An admin
 * key or an operator's console session may call it.
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
