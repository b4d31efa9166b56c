import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { json, type GatewayResponse } from '../shared/http/response.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { toTokenUsage } from '../shared/protocols/openai-chat/chat-completion-result.js';
import type { Channel } from '../shared/store/channels.js';

/** A non-streaming chat completion: the upstream's result, under the public model id. */
export const completeChat = async (
  body: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  signal: AbortSignal,
): Promise<GatewayResponse> => {
  const { result } = await withFailover(
    channels,
    (candidate) => chatAdapterOf(candidate.type).complete(channelCall(body, candidate, model, signal)),
    { signal, meter },
  );
  if (result.usage) meter.usage(toTokenUsage(result.usage));
  result.model = model.id;
  return json(200, result);
};
