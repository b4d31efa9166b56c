import type { Connection, ConnectionPool, ConnectionUser, Origin } from './connection-pool.js';
import type { Proxy } from './env-proxy.js';
import { requestHead, type RequestHeadParts } from './request-head.js';
import { ResponseParser, type ResponseHead, type ResponseListener } from './response-parser.js';
import { ResponseBody, type BodySource } from './response-body.js';
import { keepAliveIdleMs } from './response-framing.js';

export interface ExchangeRequest extends RequestHeadParts {
  readonly pool: ConnectionPool;
  readonly origin: Origin;
  readonly body?: string | Buffer | Uint8Array;
}

/** What an exchange tells its caller: the response's head with its body to read, or why none came. */
export interface ExchangeListener {
  head(head: ResponseHead, body: ResponseBody): void;
  /** The exchange failed before a head arrived (a failure after it is the body's). */
  fail(error: Error): void;
}

/**
 * The peer closed the connection before the response's end: labelled as Node's own client labels it
 * (ECONNRESET, "socket hang up"), so that retry rules written for Node's errors read it the same way.
 */
export class ConnectionLostError extends Error {
  override readonly name = 'ConnectionLostError';
  readonly code = 'ECONNRESET';

  constructor() {
    super('the connection closed before the response ended (ECONNRESET)');
  }
}

/**
 * A request to an HTTP target as a proxy forwards it: its absolute URL as the request target, and the
 * proxy's credentials (after the caller's headers, so that they are the ones sent).
 */
const forwarded = (request: ExchangeRequest, proxy: Proxy): RequestHeadParts => ({
  method: request.method,
  target: `${request.origin.key}${request.target}`,
  host: request.host,
  headers: proxy.authorization ? { ...request.headers, 'proxy-authorization': proxy.authorization } : request.headers,
});

/** A head of ASCII only (each character one byte in UTF-8) can share one string, and one write, with a UTF-8 body. */
const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;

/**
 * One request and its response on a pooled keep-alive connection: the request goes out in one write
 * (head and body together), the response is read as it arrives, and the connection goes back to its
 * pool as soon as the response's last byte has been read, whether or not its reader has caught up.
 * A connection that failed, was let go of early, or read a response it could not frame is closed.
 */
export class Exchange implements ConnectionUser, ResponseListener, BodySource {
  readonly connection: Connection;
  private readonly parser: ResponseParser;
  private body: ResponseBody | undefined;
  private over = false;
  /** What the response's `Keep-Alive` header allows the connection to sit idle after it. */
  private serverIdleLimitMs: number | undefined;

  /** Throws `InvalidRequestHeadError` before anything is sent. */
  constructor(
    request: ExchangeRequest,
    private readonly listener: ExchangeListener,
  ) {
    const payload = request.body;
    const proxy = request.pool.proxyFor(request.origin);
    const head = requestHead(
      proxy && !request.origin.https ? forwarded(request, proxy) : request,
      payload === undefined ? undefined : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
    );
    this.parser = new ResponseParser(this, request.method === 'HEAD');
    this.connection = request.pool.acquire(request.origin, this, proxy);
    const socket = this.connection.socket;
    if (payload === undefined) socket.write(head, 'latin1');
    else if (typeof payload === 'string' && isAscii(head)) socket.write(head + payload);
    else {
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(payload);
      socket.uncork();
    }
  }

  /** Ends the exchange with `error`: the caller hears it, or the body's reader does, and the connection is closed. */
  fail(error: Error): void {
    if (this.over) return;
    this.over = true;
    this.connection.destroy();
    if (this.body) this.body.destroy(error);
    else this.listener.fail(error);
  }

  socketData(chunk: Buffer): void {
    if (this.over) return;
    try {
      this.parser.feed(chunk);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  socketEnd(): void {
    if (!this.over && !this.parser.close()) this.fail(new ConnectionLostError());
  }

  socketError(error: Error): void {
    this.fail(error);
  }

  socketClose(): void {
    this.fail(new ConnectionLostError());
  }

  responseHead(head: ResponseHead): void {
    this.serverIdleLimitMs = keepAliveIdleMs(head.headers);
    this.body = new ResponseBody(this);
    this.listener.head(head, this.body);
  }

  responseBody(chunk: Buffer): void {
    if (this.over) return;
    if (!this.body!.deliver(chunk)) this.connection.socket.pause();
  }

  responseEnd(reusable: boolean): void {
    if (this.over) return;
    this.over = true;
    if (reusable) this.connection.release(this.serverIdleLimitMs);
    else this.connection.destroy();
    this.body!.complete();
  }

  resume(): void {
    if (!this.over) this.connection.socket.resume();
  }

  abandon(): void {
    if (this.over) return;
    this.over = true;
    this.connection.destroy();
  }
}
