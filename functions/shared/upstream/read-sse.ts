import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { withIdleTimeout } from './upstream-http.js';

export type SseEvent = EventSourceMessage;

/**
 * The events of an upstream SSE body, as they arrive. One parser for every provider: bytes are
 * decoded as UTF-8 across chunk boundaries, and a silent upstream fails with the idle timeout.
 */
export async function* readSse(body: IncomingMessage, idleMs: number): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of withIdleTimeout(body, idleMs)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    for (const event of pending) yield event;
    pending.length = 0;
  }
  parser.feed(decoder.decode());
  // A last event without its blank line still counts: some servers end the body right after it.
  parser.feed('\n\n');
  yield* pending;
}
