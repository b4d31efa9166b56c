import type { IncomingMessage } from 'node:http';
import type { EventSourceMessage } from 'eventsource-parser';
import { createSseParser, MAX_EVENT_CHARACTERS } from '../upstream/read-sse.js';
import { listenToBody, releaseBody, type BodyReading } from '../upstream/upstream-http.js';
import type { EventRelay, RelaySink } from './pass-through-stream.js';

/**
 * What a same-protocol stream does with one upstream event: the SSE text to send on (already framed),
 * or nothing to drop it. Throwing ends the stream with the client protocol's error event.
 */
export type PassThroughStep = (event: EventSourceMessage) => string | undefined;

/** An event framed as SSE again: one `data:` line per line of data, so multi-line data survives. */
export const frameEvent = (data: string, name?: string): string => {
  const lines = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return name === undefined ? `data: ${lines}\n\n` : `event: ${name}\ndata: ${lines}\n\n`;
};

/** How a protocol's stream ends: whether its last event has been seen, and the error if the body ended first. */
export interface RelayEnding {
  /** True once the protocol's last event has been seen: the rest of the body is not waited for. */
  complete(): boolean;
  /** The error for a body that ended before that event. */
  unfinished(): Error;
}

/**
 * The upstream's events, each passed through `step`, sent on in batches of one network chunk: what
 * arrived together leaves together, the moment it arrives, straight from the body's data event. Only
 * the SSE framing is parsed here, never the JSON inside.
 */
export const relayEvents = (
  body: IncomingMessage,
  idleMs: number,
  step: PassThroughStep,
  ending: RelayEnding,
  maxEventCharacters = MAX_EVENT_CHARACTERS,
): EventRelay => {
  let reading: BodyReading | undefined;
  let sink: RelaySink | undefined;
  let over = false;
  let batch = '';
  // A failing event ends the stream only after the events that arrived before it have gone out.
  let failure: { readonly error: unknown } | undefined;
  const parser = createSseParser(
    (event) => {
      if (failure) return;
      try {
        const framed = step(event);
        if (framed !== undefined) batch += framed;
      } catch (error) {
        failure = { error };
      }
    },
    (error) => (failure ??= { error }),
    maxEventCharacters,
  );
  const decoder = new TextDecoder();

  const finish = (error?: unknown) => {
    if (over) return;
    over = true;
    reading?.stop();
    if (error === undefined) sink?.end();
    else sink?.fail(error);
  };
  /** Sends what the text fed so far made; false once the stream is over. */
  const flush = (): boolean => {
    if (batch !== '') {
      const text = batch;
      batch = '';
      if (sink?.send(text) === false) reading?.pause();
    }
    if (failure) finish(failure.error);
    return !over;
  };

  return {
    start: (target) => {
      if (sink || over) return;
      sink = target;
      reading = listenToBody(body, idleMs, {
        chunk: (chunk) => {
          parser.feed(decoder.decode(chunk, { stream: true }));
          if (flush() && ending.complete()) finish();
        },
        end: () => {
          parser.feed(decoder.decode());
          // A last event without its blank line still counts: some servers end the body right after it.
          if (!failure) parser.feed('\n\n');
          if (flush()) finish(ending.complete() ? undefined : ending.unfinished());
        },
        error: (error) => finish(error),
      });
    },
    resume: () => reading?.resume(),
    stop: () => {
      if (over) return;
      over = true;
      if (reading) reading.stop();
      else releaseBody(body, idleMs);
    },
  };
};

/**
 * The value of the first top-level `"name": "…"` string member in serialised JSON. A match cannot
 * start inside a string: there every quote is escaped, and a member key is preceded by `{` or `,`.
 */
export const stringMember = (name: string): RegExp => new RegExp(`([{,]\\s*"${name}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`);

/** Every string value of the given members, still JSON-escaped: enough for a token estimate. */
export const stringMembers = (names: readonly string[]): RegExp =>
  new RegExp(`[{,]\\s*"(?:${names.join('|')})"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'g');
