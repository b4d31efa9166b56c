import { allowedOrigin, CORS_ORIGINS_VARIABLE, corsResponseHeaders, parseCorsOrigins } from '../http/cors-policy.js';
import type { GatewayMiddyRequest } from './gateway-context.js';

const originOf = (request: GatewayMiddyRequest): string | undefined => {
  const normalized = request.context.gateway?.headers.origin;
  if (normalized) return normalized;
  // An error before the headers were normalized: read them as they came.
  const raw = request.event.headers ?? {};
  const name = Object.keys(raw).find((header) => header.toLowerCase() === 'origin');
  return name ? raw[name] : undefined;
};

/**
 * CORS headers on every response of an allowed origin, errors included (a browser hides an error it
 * may not read, and the client would see only a network failure). Off unless GATEWAY_CORS_ORIGINS is
 * set; the setting is read once, when the function starts.
 */
export const cors = (origins: readonly string[] = parseCorsOrigins(process.env[CORS_ORIGINS_VARIABLE])) => {
  const corsAfter = (request: GatewayMiddyRequest): void => {
    const allowOrigin = allowedOrigin(origins, originOf(request));
    const response = request.response as { headers?: Record<string, string> } | undefined;
    if (!allowOrigin || !response || typeof response !== 'object') return;
    response.headers = { ...response.headers, ...corsResponseHeaders(allowOrigin) };
  };
  return { after: corsAfter, onError: corsAfter };
};
