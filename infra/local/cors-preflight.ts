import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  allowedOrigin,
  CORS_ALLOWED_HEADERS,
  CORS_ALLOWED_METHODS,
  CORS_MAX_AGE_SECONDS,
  CORS_ORIGINS_VARIABLE,
  parseCorsOrigins,
} from '../../functions/shared/http/cors-policy.js';

/**
 * Answers a browser's CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) as API Gateway
 * does for a stack deployed with `-c corsOrigins=...`: without calling any function. Returns whether
 * it answered; with CORS off (no GATEWAY_CORS_ORIGINS) it never does.
 */
export const answerCorsPreflight = (request: IncomingMessage, response: ServerResponse): boolean => {
  if (request.method !== 'OPTIONS' || !request.headers['access-control-request-method']) return false;
  const origins = parseCorsOrigins(process.env[CORS_ORIGINS_VARIABLE]);
  if (origins.length === 0) return false;
  const allowOrigin = allowedOrigin(origins, request.headers.origin);
  response.writeHead(204, {
    ...(allowOrigin
      ? {
          'access-control-allow-origin': allowOrigin,
          'access-control-allow-methods': CORS_ALLOWED_METHODS.join(', '),
          'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
          'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
        }
      : {}),
    vary: 'origin',
  });
  response.end();
  return true;
};
