import type { UpstreamResponse } from '../../upstream/upstream-http.js';
import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import type { ResponseObject, ResponseStreamEvent } from '../../protocols/openai-responses/responses-result.js';
import { secretRedactor } from '../../security/redact-secrets.js';
import { readSse } from '../../upstream/read-sse.js';
import type { ResponsesProvider } from '../responses-provider.js';
import { postOpenAi, postOpenAiJson } from './openai-json-call.js';
import { parseJson } from '../../http/parse-json.js';

const isResponse = (payload: unknown): payload is ResponseObject =>
  typeof payload === 'object' &&
  payload !== null &&
  (payload as { object?: unknown }).object === 'response' &&
  Array.isArray((payload as { output?: unknown }).output);

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/**
 * The upstream's own failure reports are relayed as they are (they are part of the Responses wire),
 * so their words are scrubbed here as UpstreamError scrubs every other upstream error: an upstream
 * may quote the request it got, key included.
 */
const FAILURE_EVENTS = new Set(['response.failed', 'error']);
const withoutSecrets = <T extends { error?: unknown }>(payload: T): T =>
  payload.error === null || payload.error === undefined
    ? payload
    : { ...payload, error: secretRedactor.redactDeep(payload.error) };

/** The upstream's typed events; a stream that ends without a terminal event is a broken answer. */
async function* responsesEvents(response: UpstreamResponse, idleMs: number): AsyncGenerator<ResponseStreamEvent> {
  let ended = false;
  for await (const sse of readSse(response.body, idleMs)) {
    if (sse.data === '[DONE]') break;
    let payload: ResponseStreamEvent;
    try {
      payload = parseJson(sse.data) as ResponseStreamEvent;
    } catch {
      throw upstreamBrokenResponse('a stream event was not JSON');
    }
    if (typeof payload?.type !== 'string') throw upstreamBrokenResponse('a stream event had no type');
    yield FAILURE_EVENTS.has(payload.type) ? secretRedactor.redactDeep(payload) : payload;
    if (TERMINAL_EVENTS.has(payload.type)) ended = true;
  }
  if (!ended) throw upstreamBrokenResponse('the stream ended before its last event');
}

/** `POST {baseUrl}/responses`, natively: the request as the client sent it, under the upstream's model name. */
export const openAiResponses: ResponsesProvider = {
  create: async (call) =>
    withoutSecrets(
      await postOpenAiJson(
        call,
        '/responses',
        { ...call.request, model: call.upstreamModel, stream: false },
        isResponse,
        'a response object',
      ),
    ),

  async stream(call) {
    const response = await postOpenAi(call, '/responses', { ...call.request, model: call.upstreamModel, stream: true });
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.includes('text/event-stream')) {
      response.body.resume();
      throw upstreamBrokenResponse(`expected an event stream, got '${contentType || 'no content type'}'`);
    }
    return responsesEvents(response, call.timeouts.idleMs);
  },
};
