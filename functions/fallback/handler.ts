import { methodNotAllowed, unknownUrl } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { createRouter } from '../shared/routes.js';
import { gatewayVersion } from '../shared/version.js';

const lookup = createRouter();

/**
 * GET /health, GET /openapi.json, and every request no other route takes: 405 on a served path with
 * the wrong method, 404 `unknown_url` otherwise (paths without `/v1` included).
 */
export const handler = gatewayHandler({ auth: false }, async ({ event }) => {
  const found = lookup(event.httpMethod, event.path);
  if (found.kind === 'found' && found.match.route.path === '/health')
    return json(200, { status: 'ok', version: gatewayVersion });
  if (found.kind === 'found' && found.match.route.path === '/openapi.json') {
    const { openApiDocument } = await import('./openapi-document.js');
    return json(200, openApiDocument);
  }
  if (found.kind === 'wrong-method') throw methodNotAllowed(event.httpMethod, event.path, found.allowed);
  throw unknownUrl(event.httpMethod, event.path);
});
