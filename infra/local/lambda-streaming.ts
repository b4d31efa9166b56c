import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';

/**
 * Emulation of the Lambda Node.js runtime's response-streaming globals (`awslambda.streamifyResponse`,
 * `awslambda.HttpResponseStream.from`), so that the very handler modules Lambda runs stream through
 * the local HTTP server unchanged.
 */
export interface StreamingPrelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, readonly (string | number | boolean)[]>;
  cookies?: readonly string[];
}

const STREAMING_HANDLER = Symbol.for('model-gateway.streaming-handler');

export type StreamingHandler = ((event: unknown, responseStream: Writable, context: unknown) => Promise<unknown>) & {
  [STREAMING_HANDLER]?: true;
};

export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as StreamingHandler)[STREAMING_HANDLER] === true;

const ignoreError = (): void => undefined;

/**
 * A client that goes away ends the stream with an error, as Lambda does, so the handler's pipeline
 * tears down and aborts its upstream request. Made apart from the stream's constructor, so that only
 * the response's listener holds this scope.
 */
const destroyWhenClientLeaves = (response: ServerResponse, stream: Writable): void => {
  response.once('close', () => {
    if (!response.writableFinished) stream.destroy(new Error('client disconnected'));
  });
};

/** The response stream a streaming handler writes to: the HTTP response, with Lambda's prelude applied. */
export class LocalResponseStream extends Writable {
  private prelude: StreamingPrelude = {};
  private contentType: string | undefined;
  /** Whether body bytes (or the end) have been handed to the response, the head with them. */
  private bodyStarted = false;
  /** Whether the socket is held until this turn of the event loop ends (`holdUntilTurnEnds`). */
  private holding = false;

  /**
   * The HTTP response, until this stream is destroyed (at its end as at a failure), when it lets go of
   * it: Node keeps a writable stream past young collections (its state holds a closure made in its
   * constructor), and one that still held its response kept the response, its request, their headers
   * and every buffer written until a full collection, some 4 KB of each streamed request promoted.
   * Writable calls nothing that writes once a stream is destroyed.
   */
  private response: ServerResponse | undefined;

  constructor(response: ServerResponse) {
    super();
    this.response = response;
    destroyWhenClientLeaves(response, this);
    // The runtime hears that error itself: a handler still waiting on its upstream has no listener
    // on the stream yet, and an unheard 'error' event would bring the whole process down. A listener
    // made once: one made here would share this scope, and with it the response, with the stream.
    this.on('error', ignoreError);
  }

  /*
   * What a stream's `setImmediate` calls: functions of the class, where an arrow member made for each
   * stream was a closure stored on it, one more thing V8 keeps past young collections with it.
   */
  private static turnEndsOf(stream: LocalResponseStream): void {
    stream.turnEnds();
  }

  private static releaseHoldOf(stream: LocalResponseStream): void {
    stream.releaseHold();
  }

  /** The response, while the stream is open: only a destroyed stream has let go of it. */
  private get open(): ServerResponse {
    if (!this.response) throw new Error('the response stream was written after it was destroyed');
    return this.response;
  }

  setPrelude(prelude: StreamingPrelude): void {
    this.prelude = prelude;
  }

  setContentType(contentType: string): void {
    this.contentType = contentType;
  }

  /**
   * Sets the status and headers, to go out with the first bytes of the body; with the body's length
   * when the whole body is known (it came with the stream's end), else the body goes out chunked.
   */
  private setHead(wholeBody?: Buffer | string): void {
    const response = this.open;
    if (response.headersSent) return;
    const headers: Record<string, string | string[]> = {};
    if (this.contentType) headers['content-type'] = this.contentType;
    for (const [name, value] of Object.entries(this.prelude.headers ?? {})) headers[name.toLowerCase()] = String(value);
    for (const [name, values] of Object.entries(this.prelude.multiValueHeaders ?? {})) {
      headers[name.toLowerCase()] = values.map(String);
    }
    if (this.prelude.cookies?.length) headers['set-cookie'] = [...this.prelude.cookies];
    const status = this.prelude.statusCode ?? 200;
    // A status that never has a body never declares a length either (RFC 9110, 8.6).
    if (wholeBody !== undefined && status >= 200 && status !== 204 && status !== 304)
      headers['content-length'] = String(
        typeof wholeBody === 'string' ? Buffer.byteLength(wholeBody) : wholeBody.length,
      );
    response.writeHead(status, headers);
  }

  /*
   * Until the body has begun, the head and a first chunk wait for this turn of the event loop to end.
   * A client waiting on a slow first token still sees 200 as soon as the turn is over (middy writes
   * nothing right after the prelude for that); a body written meanwhile shares the head's packet (a
   * buffered JSON answer, or a stream's first events when they came in with the upstream's head),
   * where a write of its own costs a syscall and a wake-up of the client for nothing. And a stream
   * that ends within the turn (a whole answer) goes out in one `end`, with its length: no chunked
   * framing, no terminator, and the response's write machinery run once instead of twice.
   */
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.bodyStarted) {
      if (chunk.length === 0 || this.firstChunk === undefined) {
        if (chunk.length > 0) this.firstChunk = chunk;
        if (!this.turnEndDue) {
          this.turnEndDue = true;
          setImmediate(LocalResponseStream.turnEndsOf, this);
        }
        return callback();
      }
      this.startBody(true);
    }
    if (chunk.length === 0) return callback();
    this.holdUntilTurnEnds();
    const response = this.open;
    if (response.write(chunk)) callback();
    else response.once('drain', () => callback());
  }

  /** A first body chunk waiting for the turn's end, or for the stream's. */
  private firstChunk: Buffer | string | undefined;
  private turnEndDue = false;

  /** The turn is over and the stream goes on: its head, and its first chunk if one came, go out now. */
  private turnEnds(): void {
    this.turnEndDue = false;
    if (this.bodyStarted || this.destroyed) return;
    if (this.firstChunk === undefined) {
      this.setHead();
      this.open.flushHeaders();
    } else this.startBody(false);
  }

  /**
   * The body begins: the head and the first chunk go to the response, held with what follows when
   * the turn goes on (`hold`), at once when it is over.
   */
  private startBody(hold: boolean): void {
    this.bodyStarted = true;
    this.setHead();
    if (hold) this.holdUntilTurnEnds();
    const chunk = this.firstChunk;
    this.firstChunk = undefined;
    if (chunk !== undefined) this.open.write(chunk);
  }

  /**
   * Holds what is written in this turn of the event loop until it is done, so that it goes out in one
   * write: a stream's events and its end (the chunked body's terminator) when they came in together,
   * which otherwise took a write of their own, and a wake-up of the client, a tick apart.
   */
  private holdUntilTurnEnds(): void {
    // The socket's own cork: the response lets go of its socket when it ends, before this turn does.
    const socket = this.response?.socket;
    if (this.holding || !socket) return;
    this.holding = true;
    this.heldSocket = socket;
    socket.cork();
    setImmediate(LocalResponseStream.releaseHoldOf, this);
  }

  /** The socket corked by `holdUntilTurnEnds`, until the turn it was corked in is over. */
  private heldSocket: Socket | undefined;

  private releaseHold(): void {
    this.holding = false;
    this.heldSocket?.uncork();
    this.heldSocket = undefined;
  }

  override _final(callback: (error?: Error | null) => void): void {
    const response = this.open;
    if (this.bodyStarted) {
      response.end(() => callback());
      return;
    }
    // The whole body is known: it goes out with the head, its length declared.
    this.bodyStarted = true;
    const body = this.firstChunk ?? '';
    this.firstChunk = undefined;
    this.setHead(body);
    response.end(body, () => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const response = this.response;
    if (response && !response.writableFinished) response.destroy();
    this.response = undefined;
    this.prelude = {};
    this.firstChunk = undefined;
    callback(error);
  }
}

/**
 * Installs the streaming functions on the `awslambda` global before any handler module is imported.
 * The AWS SDK may already have created the global (for its invoke store): we add to it, never replace it.
 */
export const installLambdaStreamingGlobals = (): void => {
  const target = globalThis as { awslambda?: Record<string, unknown> };
  const awslambda = (target.awslambda ??= {});
  awslambda.streamifyResponse ??= (handler: StreamingHandler) => {
    handler[STREAMING_HANDLER] = true;
    return handler;
  };
  awslambda.HttpResponseStream ??= {
    from: (stream: Writable, prelude: StreamingPrelude) => {
      if (stream instanceof LocalResponseStream) stream.setPrelude(prelude);
      return stream;
    },
  };
};
