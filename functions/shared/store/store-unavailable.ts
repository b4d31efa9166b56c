import { GatewayError } from '../errors.js';

/**
 * What a client gets while the store cannot be reached (refused or lost connections, timeouts, the
 * service's own 5xx, each still failing after the retries): a 503 the SDKs retry, in the path's
 * envelope, rather than the 500 that says the gateway has a bug. `/health` answers the same while the
 * store is down.
 */
export const storeUnavailable = (cause?: unknown): GatewayError =>
  new GatewayError('The gateway cannot reach its store: it cannot serve requests until the store is back.', {
    status: 503,
    type: 'server_error',
    code: 'store_unavailable',
    expose: true,
    headers: { 'retry-after': '1' },
    cause,
  });
