import type { Readable } from 'node:stream';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { upstreamBrokenResponse } from './upstream-errors.js';
import { withIdleTimeout } from './upstream-http.js';

export type SseEvent = EventSourceMessage;

/**
 * The most one upstream event may hold, the part of it not yet ended included: 64 Mi characters, as
 * much as a buffered answer may be. An upstream that never ends an event (broken, or hostile) fails
 * its stream with a 502 instead of growing the function's memory until it dies, which on
 * multi-concurrency compute would take every other stream of the instance with it.
 */
export const MAX_EVENT_CHARACTERS = 64 * 1024 * 1024;

/**
 * The SSE parser of every upstream stream: `onEvent` hears each event; `onOverflow` hears, once, that
 * an event outgrew `maxCharacters`, after which the parser takes no more input.
 */
export const createSseParser = (
  onEvent: (event: SseEvent) => void,
  onOverflow: (error: Error) => void,
  maxCharacters = MAX_EVENT_CHARACTERS,
): EventSourceParser =>
  createParser({
    onEvent,
    maxBufferSize: maxCharacters,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded')
        onOverflow(upstreamBrokenResponse(`an event grew past ${maxCharacters} characters without ending`));
    },
  });

/**
 * The events of an upstream SSE body, as they arrive. One parser for every provider: bytes are
 * decoded as UTF-8 across chunk boundaries, and a silent upstream fails with the idle timeout.
 */
export async function* readSse(
  body: Readable,
  idleMs: number,
  maxEventCharacters = MAX_EVENT_CHARACTERS,
): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  let overflow: Error | undefined;
  const parser = createSseParser(
    (event) => pending.push(event),
    (error) => (overflow = error),
    maxEventCharacters,
  );
  const decoder = new TextDecoder();
  for await (const chunk of withIdleTimeout(body, idleMs)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    for (const event of pending) yield event;
    pending.length = 0;
    if (overflow) throw overflow;
  }
  parser.feed(decoder.decode());
  // A last event without its blank line still counts: some servers end the body right after it.
  if (!overflow) parser.feed('\n\n');
  yield* pending;
  if (overflow) throw overflow;
}
