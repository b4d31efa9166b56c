import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Fault } from './fake-upstream.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes a streamed body the way vendors stream it (one write per event), applying a streaming fault:
 * a malformed second event (`malformed` says what that looks like on this wire), a stall, a cut or an
 * error event after N events, or a gap between events.
 */
export const writeStreamed = async (
  response: ServerResponse,
  headers: OutgoingHttpHeaders,
  events: readonly (string | Uint8Array)[],
  fault: Fault | undefined,
  malformed: (event: string | Uint8Array) => string | Uint8Array,
): Promise<void> => {
  response.writeHead(200, headers);
  response.flushHeaders();
  for (const [index, event] of events.entries()) {
    if (response.destroyed) return;
    if (fault?.kind === 'stall-mid-stream' && index === fault.afterEvents) return; // never another byte
    if (fault?.kind === 'cut-mid-stream' && index === fault.afterEvents) {
      // Let the events already written reach the other side before the connection drops.
      await pause(50);
      response.socket?.destroy();
      return;
    }
    if (fault?.kind === 'error-mid-stream' && index === fault.afterEvents) {
      response.end(fault.event);
      return;
    }
    if (fault?.kind === 'slow-stream' && index > 0) await pause(fault.gapMs);
    if (fault?.kind === 'gated-stream') await fault.gate(index);
    response.write(fault?.kind === 'malformed-sse' && index === 1 ? malformed(event) : event);
  }
  response.end();
};

/** Writes `data:` events (named when `eventNames` says so), with a streaming fault applied. */
export const writeSse = (
  response: ServerResponse,
  events: readonly string[],
  fault: Fault | undefined,
  eventNames?: readonly (string | undefined)[],
): Promise<void> =>
  writeStreamed(
    response,
    { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    events.map((data, index) =>
      eventNames?.[index] ? `event: ${eventNames[index]}\ndata: ${data}\n\n` : `data: ${data}\n\n`,
    ),
    fault,
    () => 'data: {"choices": [ this is not json\n\n',
  );
