import { admit } from '../shared/accounting/admission.js';
import { startMeter } from '../shared/accounting/request-meter.js';
import { withHeaders } from '../shared/accounting/with-headers.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { noChannel } from '../shared/upstream/upstream-errors.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { anthropicMessagesRequestSchema } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { estimateAnthropicInput } from '../shared/protocols/anthropic-messages/estimate-anthropic-input.js';
import { createMessage } from './messages-channel.js';
import { streamMessages } from './messages-stream.js';
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
    const meter = startMeter(request, model, 'messages', stream);
    try {
      if (channels.length === 0) throw noChannel(model.id, '/v1/messages');
      const promptTokens = estimateAnthropicInput(body);
      const admission = await admit(principal, {
        model,
        promptTokens,
        maxOutputTokens: body.max_tokens,
        request: body,
      });
      meter.admitted(admission);
      if (stream)
        return withHeaders(
          await streamMessages(body, model, channels, meter, request.signal, promptTokens),
          admission.headers,
        );
      const { result } = await withFailover(
        channels,
        (candidate) => createMessage(body, candidate, model, request.signal),
        { signal: request.signal, meter },
      );
      meter.usage(anthropicTokenUsage(result.usage));
      result.model = model.id;
      request.defer(meter.record('success', 200));
      return withHeaders(json(200, result), admission.headers);
    } catch (error) {
      request.defer(meter.failed(error));
      throw error;
    }
  },
);
