import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { routesIn, routeTable } from '../shared/middleware/route-table.js';
import { withCursorKey as paged } from '../shared/secrets/cursor-secret.js';
import { operatorPrincipal } from './operator-session.js';

// Each route's module loads on its first request: nearly every admin call meets a cold start.
const accounts = routesIn(() => import('./accounts.js'));
const accountDeletion = routesIn(() => import('./delete-account.js'));
const keys = routesIn(() => import('./keys.js'));
const channels = routesIn(() => import('./channels.js'));
const models = routesIn(() => import('./models.js'));
const usage = routesIn(() => import('./usage.js'));
const metrics = routesIn(() => import('./metrics.js'));
const apply = routesIn(() => import('./apply.js'));
const members = routesIn(() => import('./members.js'));
const audit = routesIn(() => import('./audit.js'));

/**
 * Every `/admin/v1` route (DESIGN §3.2): one function, since they share the store and are rarely
 * called. An admin key or an operator's console session may call it.
 */
export const handler = gatewayHandler(
  { auth: 'admin', optionalJsonBody: true, sessionPrincipal: operatorPrincipal },
  routeTable({
    // `paged(…)`: the route signs page cursors, and waits on the stage's signing key (cursor-secret.ts).
    'POST /admin/v1/accounts': accounts('create'),
    'GET /admin/v1/accounts': paged(accounts('list')),
    'GET /admin/v1/accounts/{id}': accounts('get'),
    'PATCH /admin/v1/accounts/{id}': accounts('update'),
    'DELETE /admin/v1/accounts/{id}': accountDeletion('remove'),

    'POST /admin/v1/keys': keys('create'),
    'GET /admin/v1/keys': paged(keys('list')),
    'GET /admin/v1/keys/{id}': keys('get'),
    'PATCH /admin/v1/keys/{id}': keys('update'),
    'DELETE /admin/v1/keys/{id}': keys('remove'),

    'PUT /admin/v1/channels/{id}': channels('put'),
    'GET /admin/v1/channels': channels('list'),
    'GET /admin/v1/channels/{id}': channels('get'),
    'DELETE /admin/v1/channels/{id}': channels('remove'),

    'PUT /admin/v1/models/{model}': models('put'),
    'GET /admin/v1/models': models('list'),
    'GET /admin/v1/models/{model}': models('get'),
    'DELETE /admin/v1/models/{model}': models('remove'),

    'GET /admin/v1/usage': paged(usage('list')),
    'GET /admin/v1/metrics': metrics('summary'),
    'POST /admin/v1/apply': apply('apply'),

    'GET /admin/v1/members': paged(members('list')),
    'PUT /admin/v1/members/{id}': members('put'),
    'DELETE /admin/v1/members/{id}': members('remove'),

    'GET /admin/v1/audit': paged(audit('list')),
  }),
);
