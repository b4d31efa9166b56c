import document from '../../docs/openapi.json' with { type: 'json' };

/**
 * The OpenAPI document kept in the repository (docs/openapi.json, written by `npm run openapi` from the
 * request schemas). Loaded on the first request for it, so no other fallback request pays for it.
 */
export const openApiDocument: unknown = document;
