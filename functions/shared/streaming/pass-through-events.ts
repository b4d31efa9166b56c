import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { withIdleTimeout } from '../upstream/upstream-http.js';

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

/**
 * The upstream's events, each passed through `step`, sent on in batches of one network chunk: what
 * arrived together leaves together, the moment it arrives, with one await per chunk rather than a
 * stack of per-event iterators. Only the SSE framing is parsed here, never the JSON inside.
 */
export async function* passThroughEvents(
  body: IncomingMessage,
  idleMs: number,
  step: PassThroughStep,
  /** True once the protocol's last event has been seen: the rest of the body is not waited for. */
  complete: () => boolean,
): AsyncGenerator<{ readonly raw: string }> {
  let batch = '';
  // A failing event ends the stream only after the events that arrived before it have gone out.
  let failure: { readonly error: unknown } | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (failure) return;
      try {
        const framed = step(event);
        if (framed !== undefined) batch += framed;
      } catch (error) {
        failure = { error };
      }
    },
  });
  const decoder = new TextDecoder();
  const flush = function* () {
    if (batch !== '') {
      const raw = batch;
      batch = '';
      yield { raw };
    }
    if (failure) throw failure.error;
  };
  for await (const chunk of withIdleTimeout(body, idleMs)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* flush();
    if (complete()) return;
  }
  parser.feed(decoder.decode());
  // A last event without its blank line still counts: some servers end the body right after it.
  parser.feed('\n\n');
  yield* flush();
}

/**
 * The value of the first top-level `"name": "…"` string member in serialised JSON. A match cannot
 * start inside a string: there every quote is escaped, and a member key is preceded by `{` or `,`.
 */
export const stringMember = (name: string): RegExp => new RegExp(`([{,]\\s*"${name}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`);

/** Every string value of the given members, still JSON-escaped: enough for a token estimate. */
export const stringMembers = (names: readonly string[]): RegExp =>
  new RegExp(`[{,]\\s*"(?:${names.join('|')})"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'g');
