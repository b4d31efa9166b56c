import { connect } from 'node:net';
import { GatewayError } from '../../functions/shared/errors.js';
import type { EmbeddedStore } from './embedded-store.js';

/** How long /health waits for the store's port to accept a connection. */
const CONNECT_TIMEOUT_MS = 1000;

const accepts = (endpoint: string): Promise<boolean> => {
  const url = new URL(endpoint);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port, timeout: CONNECT_TIMEOUT_MS });
    const done = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
};

/**
 * Whether the store can be reached, for `GET /health` only (no other request pays for it): the
 * embedded store's process is known to be gone without asking, otherwise the endpoint must accept a
 * TCP connection.
 */
export const storeReachable = async (endpoint: string, embedded: EmbeddedStore | undefined): Promise<boolean> =>
  (embedded?.isRunning() ?? true) && (await accepts(endpoint));

/** The 503 that requests arriving during shutdown get (on a connection kept alive from before). */
export const shuttingDown = () =>
  new GatewayError('The gateway is shutting down: retry on another instance or after it restarts.', {
    status: 503,
    type: 'server_error',
    code: 'shutting_down',
    expose: true,
    headers: { connection: 'close' },
  });
