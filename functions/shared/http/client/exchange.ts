import type { Connection, ConnectionPool, ConnectionUser, Origin } from './connection-pool.js';
import { requestHead, type RequestHeadParts } from './request-head.js';
import { ResponseParser, type ResponseHead, type ResponseListener } from './response-parser.js';
import { ResponseBody, type BodySource } from './response-body.js';

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

/** A head of ASCII only (each character one byte in UTF-8) can share one string, and one write, with a UTF-8 body. */
const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;

/**
 * What a reused connection's failure looks like when the peer closed it as it sat idle, our request
 * crossing its close: the connection reset or ended before any byte of a response came.
 */
const isPeerClose = (error: Error): boolean =>
  error instanceof ConnectionLostError ||
  (error as NodeJS.ErrnoException).code === 'ECONNRESET' ||
  (error as NodeJS.ErrnoException).code === 'EPIPE';

/**
 * One request and its response on a pooled keep-alive connection: the request goes out in one write
 * (head and body together), the response is read as it arrives, and the connection goes back to its
 * pool as soon as the response's last byte has been read, whether or not its reader has caught up.
 * A connection that failed, was let go of early, or read a response it could not frame is closed.
 *
 * A server may close a keep-alive connection just as a request is sent on it (its idle timeout
 * crossing our reuse): that connection then resets or ends before any byte of a response. The
 * request is sent once more, on a new connection, as Node's documentation advises for a reused
 * socket; the server never answered the first, and on a connection it had closed it did not read it.
 * A failure on a new connection, or after a response began, is the caller's.
 */
export class Exchange implements ConnectionUser, ResponseListener, BodySource {
  /** The connection the request went out on last (a new one if it was sent again). */
  connection: Connection;
  private readonly parser: ResponseParser;
  private body: ResponseBody | undefined;
  private over = false;
  /** Whether a byte of the response has come. */
  private answered = false;
  /** Whether the request was already sent again. */
  private resent = false;
  private readonly head: string;

  /** Throws `InvalidRequestHeadError` before anything is sent. */
  constructor(
    private readonly request: ExchangeRequest,
    private readonly listener: ExchangeListener,
  ) {
    const payload = request.body;
    this.head = requestHead(
      request,
      payload === undefined ? undefined : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
    );
    this.parser = new ResponseParser(this, request.method === 'HEAD');
    this.connection = request.pool.acquire(request.origin, this);
    this.send();
  }

  private send(): void {
    const socket = this.connection.socket;
    const head = this.head;
    const payload = this.request.body;
    if (payload === undefined) socket.write(head, 'latin1');
    else if (typeof payload === 'string' && isAscii(head)) socket.write(head + payload);
    else {
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(payload);
      socket.uncork();
    }
  }

  /**
   * The connection broke under the exchange: the request goes out again on a new connection when the
   * peer closed a reused one before answering, else the exchange fails with `error`.
   */
  private lost(error: Error): void {
    if (this.over) return;
    if (this.answered || this.resent || !this.connection.reused || !isPeerClose(error)) return this.fail(error);
    this.resent = true;
    this.connection.destroy();
    this.connection = this.request.pool.connectNew(this.request.origin, this);
    this.send();
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
    this.answered = true;
    try {
      this.parser.feed(chunk);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  socketEnd(): void {
    if (!this.over && !this.parser.close()) this.lost(new ConnectionLostError());
  }

  socketError(error: Error): void {
    this.lost(error);
  }

  socketClose(): void {
    this.lost(new ConnectionLostError());
  }

  responseHead(head: ResponseHead): void {
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
    if (reusable) this.connection.release();
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
