/**
 * Optional CORS for browser clients, off by default: `GATEWAY_CORS_ORIGINS` lists the origins
 * allowed (comma-separated, or `*`). Deployed, the stack sets it from `-c corsOrigins=...` and API
 * Gateway answers the preflight; locally `npm start` reads it and the local runtime answers.
 */
export const CORS_ORIGINS_VARIABLE = 'GATEWAY_CORS_ORIGINS';

/** The request headers a browser may send: the official SDKs' own included. */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'authorization',
  'content-type',
  'x-api-key',
  'x-goog-api-key',
  'x-goog-api-client',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'openai-organization',
  'openai-project',
  'x-stainless-arch',
  'x-stainless-async',
  'x-stainless-helper-method',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
];

/** The response headers a browser script may read. */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
];

export const CORS_ALLOWED_METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** How long a browser may keep a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The origins in a `GATEWAY_CORS_ORIGINS` value (or a stack context value, string or list); empty: CORS off. */
export const parseCorsOrigins = (value: unknown): readonly string[] =>
  (Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '');

/**
 * The `access-control-allow-origin` value for a request from `origin`, or `undefined` when that
 * origin is not allowed (or the request came from no browser page).
 */
export const allowedOrigin = (origins: readonly string[], origin: string | undefined): string | undefined => {
  if (origins.length === 0 || !origin) return undefined;
  if (origins.includes('*')) return '*';
  return origins.includes(origin) ? origin : undefined;
};

/** The headers that let a browser page at `origin` read a response. */
export const corsResponseHeaders = (allowOrigin: string): Record<string, string> => ({
  'access-control-allow-origin': allowOrigin,
  'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  // A named origin makes the answer depend on the request's: caches must keep them apart.
  ...(allowOrigin === '*' ? {} : { vary: 'origin' }),
});
