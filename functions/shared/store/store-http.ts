import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/**
 * The HTTP exchange of a store call, on keep-alive agents (50 sockets each, as the SDK's default
 * handler has), so that each call reuses a warm connection. It has the SDK request handler's shape
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

const SOCKETS = 50;

/**
 * How long a store call may go without a byte from the store before its connection is taken for dead
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
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: SOCKETS });

  constructor(private readonly idleTimeoutMs = STORE_IDLE_TIMEOUT_MS) {}

  handle(request: StoreHttpRequest): Promise<{ response: StoreHttpResponse }> {
    return new Promise((resolve, reject) => {
      const secure = request.protocol === 'https:';
      const outgoing = (secure ? https : http).request(
        {
          method: request.method,
          hostname: request.hostname,
          ...(request.port ? { port: request.port } : {}),
          path: `${request.path}${queryString(request.query)}`,
          headers: request.headers,
          agent: secure ? this.httpsAgent : this.httpAgent,
        },
        (incoming) => {
          // Node has joined repeated headers already, all but `set-cookie`, which DynamoDB does not send.
          const headers = incoming.headers as Record<string, string>;
          resolve({ response: { statusCode: incoming.statusCode ?? 0, headers, body: incoming } });
        },
      );
      outgoing.on('error', reject);
      outgoing.setTimeout(this.idleTimeoutMs, () => outgoing.destroy(storeTimeout(this.idleTimeoutMs)));
      outgoing.end(bytesOf(request.body));
    });
  }

  /** What the SDK asks of a handler it is given; this one has no settings to change. */
  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
