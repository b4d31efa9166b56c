import { estimateMessageTokens } from '../shared/accounting/estimate-tokens.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { chatCompletionRequestSchema } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { completeChat } from './complete-chat.js';
import { streamChat } from './stream-chat.js';

/**
 * POST /v1/chat/completions: a model the key may use, served by the first of its channels that
 * answers, streamed or whole, and metered.
 */
export const chatCompletions = gatewayHandler(
  { auth: 'user', body: chatCompletionRequestSchema, streaming: true },
  async (request) => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    const channels = orderChannels(model, 'chat');
    const stream = body.stream === true;
    const plan = {
      model,
      endpoint: 'chat',
      stream,
      channels,
      path: '/v1/chat/completions',
      admission: {
        promptTokens: estimateMessageTokens(body.messages),
        maxOutputTokens: body.max_completion_tokens ?? body.max_tokens,
        request: body,
        choices: body.n,
      },
    } as const;
    return meteredRequest(request, plan, (meter) =>
      stream
        ? streamChat(body, model, channels, meter, request.signal)
        : completeChat(body, model, channels, meter, request.signal),
    );
  },
);
