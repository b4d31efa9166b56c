import type { UpstreamResponse } from '../../upstream/upstream-http.js';
import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import type { ResponseObject, ResponseStreamEvent } from '../../protocols/openai-responses/responses-result.js';
import { secretRedactor } from '../../security/redact-secrets.js';
import { readSse } from '../../upstream/read-sse.js';
import type { ResponsesProvider } from '../responses-provider.js';
import { postOpenAi, postOpenAiJson } from './openai-json-call.js';
import { parseJson } from '../../http/parse-json.js';

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);
const FINISHED_EVENTS = new Set(['response.completed', 'response.incomplete']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An output item is an object with a type: the gateway rewrites its id, keeps it, replays it. */
const isOutputItem = (value: unknown): boolean => isRecord(value) && typeof value.type === 'string';

const hasOutputItems = (payload: Record<string, unknown>): boolean =>
  Array.isArray(payload.output) && payload.output.every(isOutputItem);

const isResponse = (payload: unknown): payload is ResponseObject =>
  isRecord(payload) && payload.object === 'response' && hasOutputItems(payload);

/**
 * What an event carries that the gateway reads: a response whose output is a list of items (a
 * finished one must have that list, for it is kept), and an item that is one.
 */
const eventShapeProblem = (event: ResponseStreamEvent): string | undefined => {
  if (event.response !== undefined) {
    if (!isRecord(event.response)) return "an event's response was not an object";
    const needsOutput = FINISHED_EVENTS.has(event.type) || event.response.output !== undefined;
    if (needsOutput && !hasOutputItems(event.response)) return "an event's response had no list of output items";
  }
  if (event.item !== undefined && !isOutputItem(event.item)) return "an event's item was not an output item";
  return undefined;
};

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
    if (!isRecord(payload) || typeof payload.type !== 'string')
      throw upstreamBrokenResponse('a stream event had no type');
    const problem = eventShapeProblem(payload);
    if (problem) throw upstreamBrokenResponse(problem);
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
