import { Readable } from 'node:stream';

/** What a body asks of the connection it is read from. */
export interface BodySource {
  /** The reader has room again: read from the socket. */
  resume(): void;
  /** The reader let go before the body's end: the connection cannot be reused. */
  abandon(): void;
}

/**
 * A response body as a Node stream: what the exchange reads is pushed in, and a reader that falls
 * behind pauses the socket. Once the whole body has been read from the connection (the connection is
 * then back in its pool), the stream holds the bytes and nothing of the connection.
 */
export class ResponseBody extends Readable {
  private source: BodySource | undefined;

  constructor(source: BodySource) {
    super();
    this.source = source;
  }

  /** Bytes of the body; false when the reader wants no more for now. */
  deliver(chunk: Buffer): boolean {
    return this.push(chunk);
  }

  /** The body has been read to its end from the connection. */
  complete(): void {
    this.source = undefined;
    this.push(null);
  }

  /**
   * Whether the whole body has been received and the stream is still whole: what is left to read is
   * all in it. Only `complete` lets go of the source without destroying the stream.
   */
  get received(): boolean {
    return this.source === undefined && !this.destroyed;
  }

  override _read(): void {
    this.source?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const source = this.source;
    this.source = undefined;
    source?.abandon();
    // As Node's own response does: the error is emitted only to a listener. A body can fail before its
    // reader has attached one (a broken chunk in the head's packet, an abort before the first read),
    // and an unheard 'error' would bring the process down; the reader finds it in `errored`.
    callback(error && this.listenerCount('error') > 0 ? error : null);
  }
}

/** A whole body (a small one: a store's answer, a credentials document) as UTF-8 text. */
export const bodyText = (body: Readable): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    body.on('error', reject);
  });
