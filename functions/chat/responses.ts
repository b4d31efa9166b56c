import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { withFailover } from '../shared/routing/with-failover.js';
import {
  responsesRequestSchema,
  type ResponsesRequest,
} from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponseObject, ResponsesUsage } from '../shared/protocols/openai-responses/responses-result.js';
import { checkStorable, conversationOf, newResponseId } from './responses-conversation.js';
import { keepResponse } from './responses-keep.js';
import { retentionDays } from '../shared/store/responses.js';
import { createOn, newResponseContext, responsesChannels } from './responses-relay.js';
import { streamResponse } from './responses-stream.js';
import type { ResponsesTurn } from './responses-turn.js';
import { estimateResponsesUsage, responsesTokenUsage } from './responses-usage.js';

/**
 * POST /v1/responses: relayed natively to channels that serve the Responses API, translated to and
 * from chat completions for the others; streamed as typed events or answered whole; metered. The
 * gateway keeps the response (unless `store: false`) and rebuilds the conversation a
 * `previous_response_id` continues, so the upstream always receives the whole of it and any channel
 * can serve any turn.
 */
export const responses = gatewayHandler(
  { auth: 'user', body: responsesRequestSchema, streaming: true },
  async (request) => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    const channels = responsesChannels(model);
    const stream = body.stream === true;
    // A deployment with a retention of 0 days keeps nothing, whatever the client asks.
    const keep = body.store !== false && retentionDays() > 0;
    const id = newResponseId();
    const conversation =
      keep || body.previous_response_id ? await conversationOf(body, principal.accountId, id) : undefined;
    if (conversation && keep) checkStorable(conversation);
    const turn: ResponsesTurn = {
      request: body,
      context: newResponseContext(body, model, id, keep, conversation?.previousResponseId ?? null),
      conversation,
      keep,
      accountId: principal.accountId,
    };
    // Budgets and rate limits see what the upstream receives: the whole conversation.
    const sent: ResponsesRequest = conversation ? { ...body, input: conversation.items as never } : body;
    const plan = {
      model,
      endpoint: 'responses',
      stream,
      channels,
      path: '/v1/responses',
      admission: {
        promptTokens: estimateResponsesUsage(sent, '').promptTokens,
        maxOutputTokens: body.max_output_tokens,
        request: sent,
      },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      if (stream) return streamResponse(turn, sent, model, channels, meter, request.signal);
      const { result } = await withFailover(channels, (candidate) => createOn(candidate, turn, model, request.signal), {
        signal: request.signal,
        meter,
      });
      if (result.response.usage) meter.usage(responsesTokenUsage(result.response.usage as ResponsesUsage));
      const response = await keepResponse(turn, result.response, result.replay);
      return json(200, response satisfies ResponseObject);
    });
  },
);
