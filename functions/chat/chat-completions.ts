import { admit } from '../shared/accounting/admission.js';
import { contentText, estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { startMeter } from '../shared/accounting/request-meter.js';
import { withHeaders } from '../shared/accounting/with-headers.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { noChannel } from '../shared/upstream/upstream-errors.js';
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
    const meter = startMeter(request, model, 'chat', stream);
    try {
      if (channels.length === 0) throw noChannel(model.id, '/v1/chat/completions');
      const admission = await admit(principal, {
        model,
        promptTokens: estimateTokens(body.messages.map((message) => contentText(message.content)).join('\n')),
        maxOutputTokens: body.max_completion_tokens ?? body.max_tokens,
        request: body,
        choices: body.n,
      });
      meter.admitted(admission);
      if (stream) return withHeaders(await streamChat(body, model, channels, meter, request.signal), admission.headers);
      const response = await completeChat(body, model, channels, meter, request.signal);
      request.defer(meter.record('success', 200));
      return withHeaders(response, admission.headers);
    } catch (error) {
      request.defer(meter.failed(error));
      throw error;
    }
  },
);
