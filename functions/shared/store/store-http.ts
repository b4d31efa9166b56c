import type { Readable } from 'node:stream';
import { ConnectionPool } from '../http/client/connection-pool.js';
import { exchangeWithin } from '../http/client/exchange-within.js';
import { targetOf } from '../http/client/url-target.js';

/**
 * The HTTP exchange of a store call, on the gateway's own HTTP/1.1 client (`http/client/`) with a
 * keep-alive pool of its own, so that each call reuses a warm connection. It has the SDK request handler's shape
 * (`handle` of a request, to `{ response }` with the body as a stream) so that the SDK's client can
 * send through it where it must resolve the store, and a test can listen on it (`test/support/store-wire.ts`).
 */

export interface StoreHttpRequest {
  readonly method: string;
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number;
  readonly path: string;
  readonly query?: Record<string, string | string[] | null>;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

export interface StoreHttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Readable;
}

/**
 * How long a store call may go without its whole answer before its connection is taken for dead
 * (a keep-alive socket whose peer vanished answers nothing, and TCP alone would wait minutes: past the
 * function's own timeout, with the usage record unwritten). DynamoDB answers in milliseconds; the
 * embedded store's slowest page reads take well under a second. The call fails as a `TimeoutError`,
 * which the store's retries treat as the SDK's standard mode does: again, on a new connection.
 */
const STORE_IDLE_TIMEOUT_MS = 10_000;

/** A store call that went `milliseconds` without an answer. */
const storeTimeout = (milliseconds: number) =>
  Object.assign(new Error(`the store did not answer within ${milliseconds} ms`), { name: 'TimeoutError' });

const queryString = (query: StoreHttpRequest['query']): string => {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) {
      parts.push(one === null ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(one)}`);
    }
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
};

/** A body as Node writes it: the SDK hands over strings or bytes for DynamoDB's JSON protocol. */
const bytesOf = (body: unknown): string | Uint8Array | undefined =>
  body === undefined || body === null ? undefined : typeof body === 'string' ? body : (body as Uint8Array);

export class StoreHttpHandler {
  private readonly pool = new ConnectionPool();

  constructor(private readonly idleTimeoutMs = STORE_IDLE_TIMEOUT_MS) {}

  async handle(request: StoreHttpRequest): Promise<{ response: StoreHttpResponse }> {
    // The store's address read as every URL the client calls is (an IPv6 host's brackets off, the
    // scheme's port), once per address.
    const { origin, host } = targetOf(
      `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}`,
    );
    const answer = await exchangeWithin(
      {
        pool: this.pool,
        origin,
        method: request.method,
        target: `${request.path}${queryString(request.query)}`,
        // The Host header is signed: it goes out as the signer saw it.
        host: request.headers.host ?? host,
        headers: request.headers,
        body: bytesOf(request.body),
      },
      this.idleTimeoutMs,
      () => storeTimeout(this.idleTimeoutMs),
    );
    // Repeated headers are joined, all but `set-cookie`, which DynamoDB does not send.
    return {
      response: { statusCode: answer.status, headers: answer.headers as Record<string, string>, body: answer.body },
    };
  }

  /** What the SDK asks of a handler it is given; this one has no settings to change. */
  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {
    this.pool.closeIdle();
  }
}
