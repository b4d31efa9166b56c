import { Readable } from 'node:stream';
import { toGatewayError, errorBody, type ErrorFormat } from '../http/error-response.js';
import type { GatewayResponse } from '../http/response.js';
import { describeThrown, isGatewayError } from '../errors.js';
import { log } from '../log.js';
import { ClientAbortedError } from '../upstream/upstream-errors.js';
import type { EventRelay, RelaySink } from './pass-through-stream.js';
import { watchSilence, type SilenceWatch } from '../upstream/watch-silence.js';

/** How a stream ended: all sent, cut by an error (sent as an event), or abandoned by the client. */
export type StreamOutcome =
  { readonly kind: 'completed' } | { readonly kind: 'failed'; readonly error: unknown } | { readonly kind: 'aborted' };

/**
 * One event to send: `data` is serialised as JSON; `event` names it (Anthropic-style streams). A
 * same-protocol relay gives `raw` instead: SSE text already framed, sent as it is.
 */
export type OutgoingEvent =
  { readonly event?: string; readonly data: unknown; readonly raw?: undefined } | { readonly raw: string };

export interface SseOptions {
  /** Sent after the last event of a completed stream (`data: [DONE]` for OpenAI-style clients). */
  readonly terminator?: string;
  /** Builds the error event sent when the source fails mid-stream. */
  readonly errorEvent?: (error: unknown) => OutgoingEvent;
  readonly errorFormat?: ErrorFormat;
  /** A comment line is sent after this much silence, so that proxies keep the connection open. */
  readonly keepAliveMs?: number;
  /** Called once, however the stream ends. */
  readonly onFinish?: (outcome: StreamOutcome) => void;
  /** Tears down the source (the upstream request) when the client goes away. */
  readonly abort?: () => void;
}

const serialise = (event: OutgoingEvent): string =>
  event.raw !== undefined
    ? event.raw
    : event.event === undefined
      ? `data: ${JSON.stringify(event.data)}\n\n`
      : `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;

const isRelay = (source: AsyncIterable<OutgoingEvent> | EventRelay): source is EventRelay =>
  typeof (source as EventRelay).start === 'function';

/**
 * A Readable of SSE text from a source of events: pulled from an async iterable (a translated stream)
 * or pushed by a relay (a same-protocol stream). Each event goes out the moment it is produced (no
 * buffering, no delay), back-pressure is respected, a failure becomes one error event and the end,
 * and destroying the stream (client gone) aborts the source at once.
 */
export class SseStream extends Readable {
  private readonly source: AsyncIterator<OutgoingEvent> | undefined;
  private readonly relay: EventRelay | undefined;
  private relayStarted = false;
  private pumping = false;
  private finished = false;
  /** Sends a comment after every interval without an event, so that proxies keep the connection open. */
  private readonly keepAlive: SilenceWatch | undefined;

  constructor(
    source: AsyncIterable<OutgoingEvent> | EventRelay,
    private readonly options: SseOptions = {},
  ) {
    super({ highWaterMark: 64 * 1024 });
    if (isRelay(source)) this.relay = source;
    else this.source = source[Symbol.asyncIterator]();
    const interval = options.keepAliveMs ?? 15_000;
    if (interval > 0)
      this.keepAlive = watchSilence(interval, () => {
        if (!this.finished && !this.destroyed) this.push(': keep-alive\n\n');
      });
  }

  private finish(outcome: StreamOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.keepAlive?.clear();
    try {
      this.options.onFinish?.(outcome);
    } catch (error) {
      log.error('stream finish hook failed', { error: String(error) });
    }
  }

  /** The source is done: the terminator, then the end. */
  private complete(): void {
    if (this.finished) return;
    if (this.destroyed) return this.finish({ kind: 'aborted' });
    if (this.options.terminator) this.push(this.options.terminator);
    this.finish({ kind: 'completed' });
    this.push(null);
  }

  /** The source failed: one error event in the client's protocol, then the end. */
  private failWith(error: unknown): void {
    if (this.finished) return;
    if (this.destroyed || error instanceof ClientAbortedError) return this.finish({ kind: 'aborted' });
    // A failure of the gateway's own, not the upstream's: the client hears only that there was one.
    if (!isGatewayError(error)) log.error('stream failed', { error: describeThrown(error) });
    const event = this.options.errorEvent?.(error) ?? {
      data: errorBody(toGatewayError(error), this.options.errorFormat ?? 'openai'),
    };
    this.push(serialise(event));
    this.finish({ kind: 'failed', error });
    this.push(null);
  }

  /** Where a relay sends: this stream, made when the relay starts (a pulled stream has none). */
  private relaySink(): RelaySink {
    return {
      send: (text) => {
        if (this.finished) return true;
        this.keepAlive?.touch();
        return this.push(text);
      },
      end: () => this.complete(),
      fail: (error) => this.failWith(error),
    };
  }

  override _read(): void {
    if (this.finished) return;
    if (this.relay) {
      if (this.relayStarted) return this.relay.resume();
      this.relayStarted = true;
      return this.relay.start(this.relaySink());
    }
    if (this.pumping) return;
    this.pumping = true;
    void this.pump(this.source!);
  }

  private async pump(source: AsyncIterator<OutgoingEvent>): Promise<void> {
    try {
      for (;;) {
        const next = await source.next();
        if (this.destroyed) return this.finish({ kind: 'aborted' });
        if (next.done) return this.complete();
        this.keepAlive?.touch();
        if (!this.push(serialise(next.value))) {
          this.pumping = false;
          return;
        }
      }
    } catch (error) {
      this.failWith(error);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.keepAlive?.clear();
    if (!this.finished) {
      this.options.abort?.();
      if (this.relay) {
        this.relay.stop();
        this.finish({ kind: 'aborted' });
      } else {
        // A pump waiting on the source settles once the abort lands and reports then; an idle one reports now.
        if (!this.pumping) this.finish({ kind: 'aborted' });
        void this.source?.return?.().catch(() => undefined);
      }
    }
    callback(error);
  }
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/** The streaming response for a handler to return. */
export const sseResponse = (stream: SseStream, headers: Record<string, string> = {}): GatewayResponse => ({
  statusCode: 200,
  headers: { ...SSE_HEADERS, ...headers },
  body: stream,
});
