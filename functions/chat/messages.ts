import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { anthropicMessagesRequestSchema } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { estimateAnthropicInput } from '../shared/protocols/anthropic-messages/estimate-anthropic-input.js';
import { createMessage } from './messages-channel.js';
import { streamMessages } from './messages-stream.js';
import { anthropicClientOptions } from '../shared/protocols/anthropic-messages/anthropic-client-options.js';
import { anthropicTokenUsage } from '../shared/protocols/anthropic-messages/messages-usage.js';

/** The spec's refusal of a model that no channel serves in the Messages format. */
export const messagesUnsupported = (model: string) =>
  invalidValue(`The model '${model}' does not support the Messages interface (/v1/messages).`, 'model');

/**
 * POST /v1/messages: Anthropic's Messages format, served natively by channels that speak it and by
 * translation through chat by the others; answers, events and errors in Anthropic's shapes.
 */
export const messages = gatewayHandler(
  {
    auth: 'user',
    carriers: ['x-api-key', 'bearer'],
    body: anthropicMessagesRequestSchema,
    errorFormat: 'anthropic',
    streaming: true,
  },
  async (request) => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    if (!model.endpoints.includes('messages')) throw messagesUnsupported(model.id);
    const channels = orderChannels(model, 'messages');
    const stream = body.stream === true;
    const clientOptions = anthropicClientOptions(request.headers, request.event.multiValueHeaders);
    const promptTokens = estimateAnthropicInput(body);
    const plan = {
      model,
      endpoint: 'messages',
      stream,
      channels,
      path: '/v1/messages',
      admission: { promptTokens, maxOutputTokens: body.max_tokens, request: body },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      if (stream) return streamMessages(body, model, channels, meter, request.signal, promptTokens, clientOptions);
      const { result } = await withFailover(
        channels,
        (candidate) => createMessage(body, candidate, model, request.signal, clientOptions),
        { signal: request.signal, meter },
      );
      // Without a usage member the meter records its own estimate, as for any upstream that reports none.
      if (result.usage) meter.usage(anthropicTokenUsage(result.usage));
      result.model = model.id;
      return json(200, result);
    });
  },
);
