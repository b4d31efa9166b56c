import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { responsesRequestSchema } from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponseObject, ResponsesUsage } from '../shared/protocols/openai-responses/responses-result.js';
import { createOn, newResponseContext, responsesChannels } from './responses-relay.js';
import { streamResponse } from './responses-stream.js';
import { estimateResponsesUsage, responsesTokenUsage } from './responses-usage.js';

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
    const context = newResponseContext(body, model);
    const plan = {
      model,
      endpoint: 'responses',
      stream,
      channels,
      path: '/v1/responses',
      admission: {
        promptTokens: estimateResponsesUsage(body, '').promptTokens,
        maxOutputTokens: body.max_output_tokens,
        request: body,
      },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      if (stream) return streamResponse(body, context, model, channels, meter, request.signal);
      const { result } = await withFailover(
        channels,
        (candidate) => createOn(candidate, body, context, model, request.signal),
        { signal: request.signal, meter },
      );
      if (result.usage) meter.usage(responsesTokenUsage(result.usage as ResponsesUsage));
      return json(200, result satisfies ResponseObject);
    });
  },
);
