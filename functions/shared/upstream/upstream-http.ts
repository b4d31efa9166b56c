import type { Readable } from 'node:stream';
import { timeoutAfterReads } from './timeout-after-reads.js';
import { watchSilence, type SilenceWatch } from './watch-silence.js';
import { GatewayError } from '../errors.js';
import { abortError, upstreamTimeout, upstreamUnreachable } from './upstream-errors.js';
import { upstreamPool } from '../http/client/connection-pool.js';
import { targetOf, type Target } from '../http/client/url-target.js';
import { Exchange } from '../http/client/exchange.js';
import { ResponseBody } from '../http/client/response-body.js';

/*
 * Upstream calls go over the gateway's own HTTP/1.1 client (shared/http/client/): Node's `http.request` spent
 * about 0.05 ms of CPU on each call (the request and response objects, the agent's bookkeeping, a
 * listener set per request on the socket), a fifth of the gateway's whole work on a relayed request,
 * where a keep-alive connection with its listeners attached once and a head written as one string
 * spends under half of that. undici would do it as cheaply, at 450 KB of bundle (its parser is
 * WebAssembly), and Node's built-in copy costs some 20 ms and 17 MB to load at a cold start.
 */

export interface UpstreamTimeouts {
  /** Until the TCP (and TLS) connection is up. */
  readonly connectMs: number;
  /** Until the response status and headers arrive. */
  readonly firstByteMs: number;
  /** The longest silence allowed between two chunks of a streamed body. */
  readonly idleMs: number;
}

export const defaultTimeouts: UpstreamTimeouts = { connectMs: 10_000, firstByteMs: 120_000, idleMs: 120_000 };

/** A channel's timeouts: its own settings over the defaults. */
export const channelTimeouts = (channel: { readonly timeouts?: Partial<UpstreamTimeouts> | null }): UpstreamTimeouts =>
  channel.timeouts ? { ...defaultTimeouts, ...channel.timeouts } : defaultTimeouts;

export interface UpstreamRequest {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
}

/** Response headers by lower-case name; `set-cookie` as a list, other repeats joined with commas. */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: UpstreamHeaders;
  /** The body, to be read or let go of (`releaseBody`). */
  readonly body: Readable;
}

const hasAuthorization = (headers: Record<string, string>): boolean => {
  for (const name in headers) if (name.toLowerCase() === 'authorization') return true;
  return false;
};

/**
 * Sends one request upstream and resolves with its status and headers as soon as they arrive; the
 * body is left to the caller to stream. Rejects with an UpstreamError (unreachable, timeout) or a
 * ClientAbortedError.
 */
export const sendUpstream = (request: UpstreamRequest): Promise<UpstreamResponse> =>
  new Promise((resolve, reject) => {
    if (request.signal.aborted) return reject(abortError(request.signal));
    let target: Target;
    try {
      target = targetOf(request.url);
    } catch (error) {
      return reject(upstreamUnreachable(error));
    }
    let failure: Error | undefined;
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const finishWaiting = () => {
      settled = true;
      clearTimeout(firstByteTimer);
      clearTimeout(connectTimer);
      request.signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => fail(abortError(request.signal));
    let exchange: Exchange;
    try {
      exchange = new Exchange(
        {
          pool: upstreamPool,
          origin: target.origin,
          method: request.method ?? 'POST',
          target: target.path,
          host: target.host,
          headers:
            target.basicAuthorization && !hasAuthorization(request.headers)
              ? { ...request.headers, authorization: target.basicAuthorization }
              : request.headers,
          body: request.body,
        },
        {
          head: (head, body) => {
            finishWaiting();
            // From here on the caller reads the body; an abort tears the body down with it.
            const onBodyAbort = () => body.destroy(abortError(request.signal));
            request.signal.addEventListener('abort', onBodyAbort, { once: true });
            body.once('close', () => request.signal.removeEventListener('abort', onBodyAbort));
            resolve({ status: head.status, headers: head.headers, body });
          },
          fail: (error) => {
            finishWaiting();
            const reason = failure ?? error;
            reject(reason instanceof GatewayError ? reason : upstreamUnreachable(reason));
          },
        },
      );
    } catch (error) {
      // A header no HTTP head can carry (a line break in a key): nothing was sent.
      return reject(upstreamUnreachable(error));
    }
    const fail = (error: Error) => {
      failure ??= error;
      exchange.fail(failure);
    };
    const firstByteTimer = timeoutAfterReads(
      request.timeouts.firstByteMs,
      () => settled,
      () => fail(upstreamTimeout('no response')),
    );
    request.signal.addEventListener('abort', onAbort, { once: true });
    const { connection } = exchange;
    if (connection.settingUp) {
      connectTimer = timeoutAfterReads(
        request.timeouts.connectMs,
        () => settled || !connection.settingUp,
        () => fail(upstreamTimeout('connect')),
      );
    }
  });

/**
 * The idle timeout of a body being read: when it fires, the body fails with a 504 (a stalled upstream
 * must end with an error, never hang).
 */
const idleTimeout = (body: Readable, idleMs: number): SilenceWatch =>
  watchSilence(idleMs, () => body.destroy(upstreamTimeout('stream idle')));

/**
 * The body's chunks, failing with a 504 when the upstream stays silent for longer than `idleMs`
 * (a stalled stream must end with an error, never hang).
 */
export async function* withIdleTimeout(body: Readable, idleMs: number): AsyncGenerator<Buffer> {
  const timer = idleTimeout(body, idleMs);
  try {
    // Not destroyed on an early return: a reader that stopped at its protocol's last event hands the
    // rest of the body (the chunked terminator) back to be drained, which keeps the socket reusable.
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      timer.touch();
      yield chunk;
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw upstreamUnreachable(error);
  } finally {
    timer.clear();
    releaseBody(body, idleMs);
  }
}

/** What reading a body as it arrives hears: its chunks, its end, or why it broke off. */
export interface BodyListener {
  chunk(chunk: Buffer): void;
  end(): void;
  /** The upstream went away, stalled for longer than the idle timeout, or the call was aborted. */
  error(error: GatewayError): void;
}

/** A body being read with `listenToBody`. */
export interface BodyReading {
  /** The reader's own client is not keeping up: no more chunks until `resume`. */
  pause(): void;
  resume(): void;
  /** Reads no more: the rest is drained if `markBodyComplete` was said, the connection closed otherwise. */
  stop(): void;
}

/**
 * A body's chunks handed to `listener` as they arrive, under the same idle timeout and with the same
 * errors as `withIdleTimeout`, without an iterator: a relayed stream's chunk then costs one event
 * instead of a promise and a frame for each of the generators stacked on it.
 */
export const listenToBody = (body: Readable, idleMs: number, listener: BodyListener): BodyReading => {
  let stopped = false;
  const idle = idleTimeout(body, idleMs);
  const stop = () => {
    if (stopped) return;
    stopped = true;
    idle.clear();
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('close', onClose);
    releaseBody(body, idleMs);
  };
  const onData = (chunk: Buffer) => {
    idle.touch();
    listener.chunk(chunk);
  };
  const onEnd = () => {
    stop();
    listener.end();
  };
  // Stays attached once stopped: an abort that lands after the reader let go must not go unheard.
  const onError = (error: Error) => {
    if (stopped) return;
    stop();
    listener.error(error instanceof GatewayError ? error : upstreamUnreachable(error));
  };
  const onClose = () => {
    if (!body.readableEnded) onError(new Error('upstream closed the body before its end'));
  };
  body.on('error', onError);
  body.once('close', onClose);
  body.once('end', onEnd);
  body.on('data', onData);
  // Torn down before anyone listened (the upstream went away right after its head): no event will come.
  if (body.destroyed && !body.readableEnded)
    onError(body.errored ?? new Error('upstream closed the body before its end'));
  return {
    pause: () => {
      if (!stopped) body.pause();
    },
    resume: () => {
      if (!stopped) body.resume();
    },
    stop,
  };
};

/** Lets go of a body nobody will read: drained if its protocol's last event was seen, else closed. */
export const releaseBody = (body: Readable, idleMs: number): void => {
  if (!body.readableEnded) settleUnreadBody(body, idleMs);
};

/**
 * Reads a whole (small) upstream body as text, with the idle timeout between chunks. Read with
 * events, not an async iterator: a JSON answer is one or two chunks, and the iterator's promise per
 * chunk and generator frames cost more than the reading. Past `maxBytes` the connection is closed.
 */
export const readUpstreamText = (body: Readable, idleMs: number, maxBytes = 64 * 1024 * 1024): Promise<string> => {
  // Usually the whole answer came in with its head and waits in the body: taken at once, without the
  // listeners, the idle timer and the events of a read (about 2 % of a relayed request's CPU).
  if (body instanceof ResponseBody && body.received && body.readableLength <= maxBytes) {
    const bytes = body.read() as Buffer | null;
    return Promise.resolve(bytes === null ? '' : bytes.toString('utf8'));
  }
  return readUpstreamTextAsItComes(body, idleMs, maxBytes);
};

const readUpstreamTextAsItComes = (body: Readable, idleMs: number, maxBytes: number): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const reading = listenToBody(body, idleMs, {
      chunk: (chunk) => {
        size += chunk.length;
        if (size > maxBytes) {
          reading.stop();
          reject(upstreamUnreachable(new Error('upstream body too large')));
        } else chunks.push(chunk);
      },
      end: () => resolve(Buffer.concat(chunks, size).toString('utf8')),
      error: reject,
    });
  });

/**
 * Set on a body whose protocol has ended. A mark on the body itself: a WeakSet's entry is an
 * ephemeron the collector must trace for every relayed stream, and adding one was about 0.4 % of a
 * relayed stream's CPU.
 */
const COMPLETE = Symbol('upstream body complete');
type Markable = Readable & { [COMPLETE]?: true };

/**
 * Marks a body whose last meaningful event has been read (OpenAI's `[DONE]`): once the reader stops,
 * the few bytes left are drained so the keep-alive connection goes back to the pool instead of being
 * closed. Any other early stop (an error, a broken stream) still tears the connection down.
 */
export const markBodyComplete = (body: Readable): void => {
  (body as Markable)[COMPLETE] = true;
};

const settleUnreadBody = (body: Readable, idleMs: number): void => {
  if ((body as Markable)[COMPLETE] !== true) {
    body.destroy();
    return;
  }
  // An upstream that keeps talking after its last event does not get to hold the socket.
  const guard = setTimeout(() => body.destroy(), Math.min(idleMs, 5_000));
  guard.unref();
  body.once('close', () => clearTimeout(guard));
  body.once('end', () => clearTimeout(guard));
  body.resume();
};
