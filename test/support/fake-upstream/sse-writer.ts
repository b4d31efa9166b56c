import type { ServerResponse } from 'node:http';
import type { Fault } from './fake-upstream.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `data:` events the way a vendor streams them (one write per event), applying a streaming
 * fault: a malformed event, a stall or a cut after N events, or a gap between events.
 */
export const writeSse = async (
  response: ServerResponse,
  events: readonly string[],
  fault: Fault | undefined,
  eventNames?: readonly (string | undefined)[],
): Promise<void> => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  for (const [index, data] of events.entries()) {
    if (response.destroyed) return;
    if (fault?.kind === 'stall-mid-stream' && index === fault.afterEvents) return; // never another byte
    if (fault?.kind === 'cut-mid-stream' && index === fault.afterEvents) {
      // Let the events already written reach the other side before the connection drops.
      await pause(50);
      response.socket?.destroy();
      return;
    }
    if (fault?.kind === 'malformed-sse' && index === 1) {
      response.write('data: {"choices": [ this is not json\n\n');
      continue;
    }
    if (fault?.kind === 'slow-stream' && index > 0) await pause(fault.gapMs);
    const name = eventNames?.[index];
    response.write(name ? `event: ${name}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
  }
  response.end();
};
