import { admit } from '../shared/accounting/admission.js';
import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { startMeter } from '../shared/accounting/request-meter.js';
import { withHeaders } from '../shared/accounting/with-headers.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { invalidValue } from '../shared/errors.js';
import { toGatewayError } from '../shared/http/error-response.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { noChannel } from '../shared/upstream/upstream-errors.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { TokenUsage } from '../shared/protocols/openai-chat/chat-completion-result.js';
import {
  responsesRequestSchema,
  type ResponsesRequest,
} from '../shared/protocols/openai-responses/responses-request.js';
import type {
  ResponseObject,
  ResponseStreamEvent,
  ResponsesUsage,
} from '../shared/protocols/openai-responses/responses-result.js';
import { SseStream, sseResponse, type OutgoingEvent } from '../shared/streaming/sse-response.js';
import { createOn, newResponseContext, responsesChannels, streamOn } from './responses-relay.js';

const tokenUsage = (usage: ResponsesUsage, source: TokenUsage['source'] = 'upstream'): TokenUsage => ({
  promptTokens: usage.input_tokens ?? 0,
  completionTokens: usage.output_tokens ?? 0,
  totalTokens: usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
  cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
  reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  source,
});

const estimate = (request: ResponsesRequest, outputText: string): TokenUsage => {
  const promptTokens = estimateTokens(`${request.instructions ?? ''}${JSON.stringify(request.input ?? '')}`);
  const completionTokens = estimateTokens(outputText);
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: 0,
    reasoningTokens: 0,
    source: 'estimate',
  };
};

/**
 * POST /v1/responses: relayed natively to channels that serve the Responses API, translated to and
 * from chat completions for the others; streamed as typed events or answered whole; metered.
 * Stateless: `previous_response_id` needs stored responses, which the gateway does not keep.
 */
export const responses = gatewayHandler(
  { auth: 'user', body: responsesRequestSchema, streaming: true },
  async (request) => {
    const { body, principal } = request;
    if (body.previous_response_id) {
      throw invalidValue(
        'The gateway does not store responses, so previous_response_id cannot be used: send the whole conversation in `input` (earlier output items included).',
        'previous_response_id',
      );
    }
    const model = await resolveUsableModel(principal, body.model);
    const channels = responsesChannels(model);
    const stream = body.stream === true;
    const meter = startMeter(request, model, 'responses', stream);
    const context = newResponseContext(body, model);
    try {
      if (channels.length === 0) throw noChannel(model.id, '/v1/responses');
      const admission = await admit(principal, {
        model,
        promptTokens: estimate(body, '').promptTokens,
        maxOutputTokens: body.max_output_tokens,
        request: body,
      });
      meter.admitted(admission);
      if (!stream) {
        const { result } = await withFailover(
          channels,
          (candidate) => createOn(candidate, body, context, model, request.signal),
          {
            signal: request.signal,
            meter,
          },
        );
        if (result.usage) meter.usage(tokenUsage(result.usage as ResponsesUsage));
        request.defer(meter.record('success', 200));
        return withHeaders(json(200, result satisfies ResponseObject), admission.headers);
      }

      const upstreamCall = upstreamCallFor(request.signal);
      const { result: events } = await withFailover(
        channels,
        (candidate) => streamOn(candidate, body, context, model, upstreamCall.signal),
        {
          signal: upstreamCall.signal,
          meter,
        },
      );
      let outputText = '';
      let lastSequence = -1;
      async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
        for await (const event of events) {
          if (typeof event.delta === 'string') outputText += event.delta;
          const usage = (event.response as { usage?: ResponsesUsage | null } | undefined)?.usage;
          if (usage) meter.usage(tokenUsage(usage));
          if (typeof event.sequence_number === 'number') lastSequence = event.sequence_number;
          yield { event: event.type, data: event };
        }
      }
      const sse = new SseStream(clientEvents(), {
        abort: () => upstreamCall.abort(),
        onFinish: meter.recordWhenStreamEnds(() => estimate(body, outputText)),
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
      });
      return withHeaders(sseResponse(sse), admission.headers);
    } catch (error) {
      request.defer(meter.failed(error));
      throw error;
    }
  },
);
