import { upstreamBrokenResponse } from '../upstream/upstream-errors.js';
import { readUpstreamText, type UpstreamResponse } from '../upstream/upstream-http.js';
import { readSse } from '../upstream/read-sse.js';
import { parseJson } from '../http/parse-json.js';

/** Helpers every non-OpenAI adapter needs to read its upstream's bodies. */

export const isSuccess = (response: UpstreamResponse) => response.status >= 200 && response.status < 300;

/** A whole JSON body; a body that is not JSON is a broken response (retryable on another channel). */
export const readJsonBody = async (response: UpstreamResponse, idleMs: number): Promise<unknown> => {
  const text = await readUpstreamText(response.body, idleMs);
  try {
    return parseJson(text);
  } catch {
    throw upstreamBrokenResponse('the body was not JSON');
  }
};

/** An error body, parsed when it is JSON; `undefined` otherwise. */
export const readErrorBody = async (response: UpstreamResponse, idleMs: number): Promise<unknown> => {
  const text = await readUpstreamText(response.body, idleMs).catch(() => '');
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
};

export const retryAfterHeader = (response: UpstreamResponse): string | undefined => {
  const value = response.headers['retry-after'];
  return Array.isArray(value) ? value[0] : value;
};

/** Refuses a 2xx that is not an event stream, before anything reaches the client. */
export const requireEventStream = (response: UpstreamResponse): void => {
  const contentType = String(response.headers['content-type'] ?? '');
  if (contentType.includes('text/event-stream')) return;
  response.body.resume();
  throw upstreamBrokenResponse(`expected an event stream, got '${contentType || 'no content type'}'`);
};

/** The JSON payloads of an upstream SSE body, with their event names. */
export async function* readJsonEvents(
  response: UpstreamResponse,
  idleMs: number,
): AsyncGenerator<{ event: string | undefined; data: unknown }> {
  for await (const event of readSse(response.body, idleMs)) {
    if (event.data === '' || event.data === '[DONE]') continue;
    let data: unknown;
    try {
      data = parseJson(event.data);
    } catch {
      throw upstreamBrokenResponse('a stream event was not JSON');
    }
    yield { event: event.event, data };
  }
}
