import { isFieldValue, isToken } from './http-syntax.js';
import { addHeader, framingOf, hasToken, NO_BODY, trimWhitespace, type BodyFraming } from './response-framing.js';
import { ResponseFramingError } from './response-framing-error.js';

export { ResponseFramingError };

/**
 * An HTTP/1.1 response read as its bytes arrive (RFC 9112): the head, then the body framed by its
 * Content-Length, its chunked coding, or the connection's close. It does no I/O: the connection feeds
 * it what the socket reads and hears the head, the body's bytes and the end. Anything it cannot frame
 * exactly is a `ResponseFramingError`, and the connection that carried it is not used again: a
 * response read wrongly would desynchronise every later one on that connection.
 */

/** The response head: status, and headers by lower-case name (repeats joined as Node joins them). */
export interface ResponseHead {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
}

export interface ResponseListener {
  responseHead(head: ResponseHead): void;
  responseBody(chunk: Buffer): void;
  /** The response is complete; `reusable` when the connection may carry another request. */
  responseEnd(reusable: boolean): void;
}

/** A head larger than this is refused; Node's own client allows 16 KiB. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line (extensions included), or the trailer section, larger than this is refused. */
const MAX_LINE_BYTES = 8 * 1024;
const MAX_TRAILER_BYTES = 16 * 1024;

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\0\r\n]*)?$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[\t ]*(?:;[^\0\r\n]*)?$/;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
  Done,
}

/** Where a framed body starts reading. */
const STATE_OF = {
  length: State.Length,
  chunked: State.ChunkSize,
  'until-close': State.UntilClose,
} as const satisfies Record<Exclude<BodyFraming['body'], 'none'>, State>;

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);

/** Each byte's value as a hexadecimal digit, -1 for any other byte. */
const HEX_VALUES = Int8Array.from({ length: 256 }, (_, byte) => {
  const digit = Number.parseInt(String.fromCharCode(byte), 16);
  return Number.isNaN(digit) ? -1 : digit;
});

/**
 * Where the blank line that ends a head ends in `bytes`: after CRLF CRLF, or after bare LFs, which
 * RFC 9112 lets a reader accept; -1 when it has not come yet.
 */
const blankLineEnd = (bytes: Buffer): number => {
  for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
    if (bytes[lf + 1] === LF) return lf + 2;
    if (bytes[lf + 1] === CR && bytes[lf + 2] === LF) return lf + 3;
  }
  return -1;
};

export class ResponseParser {
  private state = State.Head;
  /** Bytes of a head, a chunk-size line or trailers that came in pieces, until the line is whole. */
  private pending: Buffer | undefined;
  /** What is left of the body (Length) or of the current chunk (ChunkData). */
  private remaining = 0;
  private reusable = false;
  private trailerBytes = 0;
  private ended = false;
  /** A head that came in pieces: them, their size, and the last bytes read of it. */
  private headPieces: Buffer[] = [];
  private headBytes = 0;
  private headTail: Buffer = EMPTY;

  /** `noBody`: the request was a HEAD, whose response never has a body whatever its head says. */
  constructor(
    private readonly listener: ResponseListener,
    private readonly noBody = false,
  ) {}

  /** Reads the next bytes of the connection. Throws `ResponseFramingError`. */
  feed(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      switch (this.state) {
        case State.Head:
          data = this.readHead(data);
          break;
        case State.Length:
        case State.ChunkData:
          data = this.readBodyBytes(data);
          break;
        case State.ChunkSize:
          data = this.readChunkSize(data);
          break;
        case State.ChunkEnd:
          data = this.readChunkEnd(data);
          break;
        case State.Trailers:
          data = this.readTrailers(data);
          break;
        case State.UntilClose:
          this.listener.responseBody(data);
          return;
        case State.Done:
          // Bytes nobody asked for: the connection cannot be trusted with another request.
          this.reusable = false;
          data = data.subarray(data.length);
          break;
      }
    }
    this.announceEnd();
  }

  /**
   * The peer closed the connection: the end of a body read until close. False when that cut the
   * response short.
   */
  close(): boolean {
    if (this.state === State.UntilClose) this.finish(false);
    if (this.state !== State.Done) return false;
    this.announceEnd();
    return true;
  }

  /** The end is told once all the bytes read with it are: only then is it known whether more followed. */
  private finish(reusable: boolean): void {
    this.state = State.Done;
    this.pending = undefined;
    this.reusable = reusable;
  }

  private announceEnd(): void {
    if (this.state !== State.Done || this.ended) return;
    this.ended = true;
    this.listener.responseEnd(this.reusable);
  }

  /** Joins what waited with the new bytes, within `limit`. */
  private gather(data: Buffer, limit: number, what: string): Buffer {
    const joined = this.pending ? Buffer.concat([this.pending, data]) : data;
    if (joined.length > limit) throw new ResponseFramingError(`${what} too large`);
    return joined;
  }

  /**
   * Gathers the head's bytes until its blank line. The pieces wait in a list and only the newest is
   * searched (with the last bytes before it, where a blank line may begin): a head sent a few bytes
   * at a time costs in proportion to its size, not to its square.
   */
  private readHead(data: Buffer): Buffer {
    const tail = this.headTail;
    const probe = tail.length > 0 ? Buffer.concat([tail, data]) : data;
    const end = blankLineEnd(probe);
    if (end === -1) {
      this.headBytes += data.length;
      if (this.headBytes > MAX_HEAD_BYTES) throw new ResponseFramingError('response head too large');
      this.headPieces.push(data);
      this.headTail = probe.subarray(Math.max(0, probe.length - 3));
      return EMPTY;
    }
    const inData = end - tail.length;
    if (this.headBytes + inData > MAX_HEAD_BYTES) throw new ResponseFramingError('response head too large');
    const head =
      this.headPieces.length > 0
        ? Buffer.concat([...this.headPieces, data.subarray(0, inData)])
        : data.subarray(0, inData);
    this.headPieces = [];
    this.headBytes = 0;
    this.headTail = EMPTY;
    this.startBody(head.toString('latin1'));
    return data.subarray(inData);
  }

  private startBody(text: string): void {
    // The text ends with the blank line; each line is read in place, without splitting the head.
    let lineEnd = text.indexOf('\n');
    const match = STATUS_LINE.exec(stripCr(text.slice(0, lineEnd)));
    if (!match) throw new ResponseFramingError('malformed status line');
    const minor = match[1];
    const status = Number(match[2]);
    const headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (let start = lineEnd + 1; ; start = lineEnd + 1) {
      lineEnd = text.indexOf('\n', start);
      const end = text.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
      if (end <= start) break;
      // A folded line (obs-fold) has no name before its colon, and is refused, as RFC 9112 allows.
      const colon = text.indexOf(':', start);
      if (colon <= start || colon > end) throw new ResponseFramingError('malformed header line');
      const name = text.slice(start, colon);
      if (!isToken(name)) throw new ResponseFramingError('malformed header name');
      const value = trimWhitespace(text.slice(colon + 1, end));
      // A stray CR inside the line fails here too: it is no field-value character.
      if (!isFieldValue(value)) throw new ResponseFramingError('malformed header value');
      addHeader(headers, name.toLowerCase(), value);
    }
    // 1xx heads are interim: the real response follows on the same connection. 101 never is asked for.
    if (status < 200) {
      if (status === 101) throw new ResponseFramingError('unexpected protocol switch');
      this.state = State.Head;
      return;
    }
    const keepAlive =
      minor === '1' ? !hasToken(headers.connection, 'close') : hasToken(headers.connection, 'keep-alive');
    // Framed before the head is told: a head whose body cannot be framed fails as a whole, before
    // anyone has taken its status for an answer.
    const framing = this.noBody ? NO_BODY : framingOf(status, headers);
    this.listener.responseHead({ status, headers });
    this.reusable = keepAlive && framing.reusable;
    if (framing.body === 'none') return this.finish(this.reusable);
    this.state = STATE_OF[framing.body];
    this.remaining = framing.length;
  }

  /** Reads up to the end of a line; returns the line (without CRLF) and the rest, or undefined. */
  private takeLine(data: Buffer, limit: number, what: string): { line: string; rest: Buffer } | undefined {
    const lf = data.indexOf(LF);
    if (lf === -1) {
      this.pending = this.gather(data, limit, what);
      return undefined;
    }
    const bytes = this.gather(data.subarray(0, lf + 1), limit, what);
    this.pending = undefined;
    return { line: stripCr(bytes.toString('latin1', 0, bytes.length - 1)), rest: data.subarray(lf + 1) };
  }

  /** Bytes of a body framed by its length, or of a chunk: handed on, up to what is left of it. */
  private readBodyBytes(data: Buffer): Buffer {
    const take = Math.min(this.remaining, data.length);
    this.remaining -= take;
    this.listener.responseBody(take === data.length ? data : data.subarray(0, take));
    if (this.remaining === 0) {
      if (this.state === State.Length) this.finish(this.reusable);
      else this.state = State.ChunkEnd;
    }
    return data.subarray(take);
  }

  private readChunkSize(data: Buffer): Buffer {
    // The common line, whole in this read: hex digits and CRLF, read from the bytes themselves.
    if (this.pending === undefined) {
      let size = 0;
      let index = 0;
      for (; index < data.length && index < 12; index += 1) {
        const digit = HEX_VALUES[data[index]!]!;
        if (digit === -1) break;
        size = size * 16 + digit;
      }
      if (index > 0 && data[index] === CR && data[index + 1] === LF) {
        this.startChunk(size);
        return data.subarray(index + 2);
      }
    }
    const taken = this.takeLine(data, MAX_LINE_BYTES, 'chunk-size line');
    if (!taken) return EMPTY;
    const match = CHUNK_SIZE.exec(taken.line);
    if (!match) throw new ResponseFramingError('malformed chunk size');
    this.startChunk(Number.parseInt(match[1]!, 16));
    return taken.rest;
  }

  private startChunk(size: number): void {
    if (size === 0) {
      this.trailerBytes = 0;
      this.state = State.Trailers;
    } else {
      this.remaining = size;
      this.state = State.ChunkData;
    }
  }

  private readChunkEnd(data: Buffer): Buffer {
    if (this.pending === undefined && data[0] === CR && data[1] === LF) {
      this.state = State.ChunkSize;
      return data.subarray(2);
    }
    const taken = this.takeLine(data, 2, 'chunk end');
    if (!taken) return EMPTY;
    if (taken.line !== '') throw new ResponseFramingError('chunk longer than its size');
    this.state = State.ChunkSize;
    return taken.rest;
  }

  private readTrailers(data: Buffer): Buffer {
    let rest = data;
    while (rest.length > 0) {
      const taken = this.takeLine(rest, MAX_LINE_BYTES, 'trailer line');
      // Counted as they arrive, a line's pieces included.
      this.trailerBytes += rest.length - (taken ? taken.rest.length : 0);
      if (this.trailerBytes > MAX_TRAILER_BYTES) throw new ResponseFramingError('trailers too large');
      if (!taken) return EMPTY;
      rest = taken.rest;
      if (taken.line === '') {
        this.finish(this.reusable);
        return rest;
      }
      // Trailers are read past, not used: none of the relayed APIs sends one that matters.
      if (taken.line.indexOf(':') <= 0) throw new ResponseFramingError('malformed trailer line');
    }
    return rest;
  }
}

const stripCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);
