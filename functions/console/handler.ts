import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { routesIn, routeTable } from '../shared/middleware/route-table.js';
import { withCursorKey as paged } from '../shared/secrets/cursor-secret.js';
import { auditedSignIn } from './sign-in-audit.js';
import { redirect, webAsset } from './web-assets.js';

// A cold start usually serves the page first: the API's routes load on their first request.
const session = routesIn(() => import('./session.js'));
const me = routesIn(() => import('./me.js'));
const keys = routesIn(() => import('./keys.js'));
const models = routesIn(() => import('./models.js'));
const usage = routesIn(() => import('./usage.js'));
const members = routesIn(() => import('./members.js'));
const mfa = routesIn(() => import('./mfa.js'));
const overview = routesIn(() => import('./overview.js'));
const requests = routesIn(() => import('./requests.js'));
const channelChecks = routesIn(() => import('./channel-checks.js'));
const audit = routesIn(() => import('./audit.js'));
const budgets = routesIn(() => import('./budgets.js'));

/**
 * The console: its page and the API it calls. The API authenticates each request itself (a console
 * session, not an API key) and every route applies the rules of `authorize.ts`.
 */
export const handler = gatewayHandler(
  { auth: false, optionalJsonBody: true },
  routeTable({
    // `paged(…)`: the route signs page cursors, and waits on the stage's signing key (cursor-secret.ts).
    // `/console` → `/console/`, so that the page's relative links resolve under it (with any stage prefix).
    'GET /console': ({ event }) =>
      event.path.endsWith('/') ? webAsset(undefined) : Promise.resolve(redirect('console/')),
    'GET /console/{asset}': ({ pathParameters }) => webAsset(pathParameters.asset),
    'GET /console/api/config': session('config'),
    'POST /console/api/session': auditedSignIn(session('signIn')),
    'DELETE /console/api/session': session('signOut'),
    'GET /console/api/me': me('me'),
    'GET /console/api/keys': keys('list'),
    'POST /console/api/keys': keys('create'),
    'PATCH /console/api/keys/{id}': keys('update'),
    'DELETE /console/api/keys/{id}': keys('revoke'),
    'GET /console/api/models': models('list'),
    'GET /console/api/usage': usage('list'),
    'GET /console/api/members': members('list'),
    'PUT /console/api/members/{id}': members('put'),
    'DELETE /console/api/members/{id}': members('remove'),
    'POST /console/api/mfa': mfa('enable'),
    'GET /console/api/overview': overview('overview'),
    'GET /console/api/requests': paged(requests('list')),
    'GET /console/api/channels/health': channelChecks('health'),
    'POST /console/api/channels/{id}/test': channelChecks('test'),
    'GET /console/api/audit': paged(audit('list')),
    'GET /console/api/budgets': budgets('list'),
    'PUT /console/api/budgets/{level}/{id}': budgets('put'),
  }),
);
