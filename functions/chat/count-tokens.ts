import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { hasAdapter } from '../shared/providers/provider-capabilities.js';
import { messagesAdapterOf } from '../shared/providers/messages-adapters.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { UpstreamError } from '../shared/upstream/upstream-errors.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { anthropicCountTokensRequestSchema } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { estimateAnthropicInput } from '../shared/protocols/anthropic-messages/estimate-anthropic-input.js';
import { anthropicClientOptions } from '../shared/protocols/anthropic-messages/anthropic-client-options.js';
import { messagesUnsupported } from './messages.js';

/**
 * POST /v1/messages/count_tokens: the upstream's own count where a channel speaks the Messages
 * format natively, a local count otherwise (or when those channels are all unavailable).
 */
export const countTokens = gatewayHandler(
  {
    auth: 'user',
    carriers: ['x-api-key', 'bearer'],
    body: anthropicCountTokensRequestSchema,
    errorFormat: 'anthropic',
    streaming: true,
  },
  async ({ body, principal, signal, trace, headers, event }) => {
    const model = await resolveUsableModel(principal, body.model);
    if (!model.endpoints.includes('messages')) throw messagesUnsupported(model.id);
    const native = orderChannels(model, 'messages', (channel) => hasAdapter(channel.type, 'messages'));
    if (native.length > 0) {
      const clientOptions = anthropicClientOptions(headers, event.multiValueHeaders);
      try {
        const { result } = await withFailover(
          native,
          (channel) =>
            messagesAdapterOf(channel.type).countTokens(channelCall(body, channel, model, signal, clientOptions)),
          { signal, meter: trace },
        );
        return json(200, { input_tokens: result });
      } catch (error) {
        // A refusal of the request itself is the client's to see; an unavailable upstream is not.
        if (!(error instanceof UpstreamError && error.retryable)) throw error;
      }
    }
    return json(200, { input_tokens: estimateAnthropicInput(body) });
  },
);
