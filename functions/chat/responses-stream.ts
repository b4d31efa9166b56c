import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { toGatewayError } from '../shared/http/error-response.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { meteredStream } from '../shared/middleware/metered-stream.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { ResponsesRequest } from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponseStreamEvent, ResponsesUsage } from '../shared/protocols/openai-responses/responses-result.js';
import type { Channel } from '../shared/store/channels.js';
import type { OutgoingEvent } from '../shared/streaming/sse-response.js';
import { streamOn } from './responses-relay.js';
import type { ResponsesTurn } from './responses-turn.js';
import { estimateResponsesUsage, responsesTokenUsage } from './responses-usage.js';

/**
 * A streamed /v1/responses answer: typed events from the first channel that starts a stream, the
 * usage they report metered, and a failure after the first event sent as one `error` event. `sent`
 * is the request as the upstream receives it (the whole conversation), for an estimate of its usage.
 */
export const streamResponse = (
  turn: ResponsesTurn,
  sent: ResponsesRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  let outputText = '';
  let lastSequence = -1;
  async function* clientEvents(events: AsyncIterable<ResponseStreamEvent>): AsyncGenerator<OutgoingEvent> {
    for await (const event of events) {
      if (typeof event.delta === 'string') outputText += event.delta;
      const usage = (event.response as { usage?: ResponsesUsage | null } | undefined)?.usage;
      if (usage) meter.usage(responsesTokenUsage(usage));
      if (typeof event.sequence_number === 'number') lastSequence = event.sequence_number;
      yield { event: event.type, data: event };
    }
  }
  return meteredStream({
    channels,
    meter,
    client,
    open: (channel, upstreamSignal) => streamOn(channel, turn, model, upstreamSignal),
    toClient: clientEvents,
    estimate: () => estimateResponsesUsage(sent, outputText),
    framing: {
      // A failure after the first event: one `error` event (the SDK raises it), then the end.
      errorEvent: (error): OutgoingEvent => {
        const failure = toGatewayError(error);
        const data: ResponseStreamEvent = {
          type: 'error',
          sequence_number: lastSequence + 1,
          code: failure.code ?? failure.type,
          message: failure.expose ? failure.message : 'The server had an error while processing your request.',
          param: failure.param,
        };
        return { event: 'error', data };
      },
    },
  });
};
