import { estimateMessageTokens } from '../shared/accounting/estimate-tokens.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { unknownUrl } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { geminiGenerateContentRequestSchema } from '../shared/protocols/gemini/gemini-generate-content-request.js';
import { geminiToChatRequest } from '../shared/protocols/gemini/gemini-to-chat-request.js';
import { countGeminiTokens } from './gemini-count-tokens.js';
import { generateOn } from './gemini-relay.js';
import { streamGeminiContent } from './gemini-stream-content.js';

const ACTIONS = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;
type Action = (typeof ACTIONS)[number];

/** `gemini-2.5-flash:generateContent` (API Gateway's one path part) as the model and the method. */
export const parseModelAction = (modelAction: string): { model: string; action: Action } | undefined => {
  const colon = modelAction.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const action = modelAction.slice(colon + 1);
  if (!(ACTIONS as readonly string[]).includes(action)) return undefined;
  return { model: modelAction.slice(0, colon).replace(/^models\//, ''), action: action as Action };
};

/**
 * POST /v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens: Google's
 * format, relayed as it is to gemini channels and through translation to any other chat channel, so
 * the @google/genai SDK and Gemini CLI work with the gateway as their base URL. Errors in Google's envelope.
 */
export const geminiGenerateContent = gatewayHandler(
  {
    auth: 'user',
    carriers: ['x-goog-api-key', 'query-key', 'bearer'],
    body: geminiGenerateContentRequestSchema,
    // No errorFormat: the path decides, as for the answers given before this handler runs (Google's
    // on `/v1beta/...` and `/v1/models/{model}:action`).
    streaming: true,
  },
  async (request) => {
    const { body, principal, pathParameters } = request;
    const parsed = parseModelAction(pathParameters.modelAction ?? '');
    if (!parsed) throw unknownUrl('POST', request.event.path);
    const model = await resolveUsableModel(principal, parsed.model);
    const stream = parsed.action === 'streamGenerateContent';
    // Fitted to each channel's upstream model when it is called (`gemini-relay.ts`).
    const chatRequest = geminiToChatRequest(body, model.id, stream);
    const channels = orderChannels(model, 'chat');
    if (parsed.action === 'countTokens')
      return json(200, await countGeminiTokens(body, chatRequest, model, channels, request.signal));
    const forms = { native: body, chat: chatRequest };
    const plan = {
      model,
      endpoint: 'chat',
      stream,
      channels,
      path: `/v1beta/models/${model.id}:${parsed.action}`,
      admission: {
        promptTokens: estimateMessageTokens(chatRequest.messages),
        maxOutputTokens: chatRequest.max_completion_tokens ?? chatRequest.max_tokens,
        request: body,
        choices: chatRequest.n,
      },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      if (stream) return streamGeminiContent(forms, model, channels, meter, request.signal);
      const { result } = await withFailover(
        channels,
        (candidate) => generateOn(candidate, forms, model, request.signal),
        { signal: request.signal, meter },
      );
      if (result.usage) meter.usage(result.usage);
      return json(200, result.body);
    });
  },
);
