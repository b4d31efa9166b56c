import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { SseStream, sseResponse, type OutgoingEvent } from '../shared/streaming/sse-response.js';
import type { Channel } from '../shared/store/channels.js';
import { openChatStream } from './open-chat-stream.js';

/**
 * A streamed chat completion: once a channel has accepted the request, its chunks go to the client as
 * they arrive, under the public model id. The usage chunk goes only to clients that asked for it;
 * the gateway reads it either way.
 */
export const streamChat = async (
  body: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  const upstream = await openChatStream(body, model, channels, meter, client);
  const includeUsage = body.stream_options?.include_usage === true;
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of upstream.chunks) {
      if (!includeUsage) {
        if (chunk.choices.length === 0) continue;
        delete chunk.usage;
      }
      chunk.model = model.id;
      yield { data: chunk };
    }
  }
  const stream = new SseStream(clientEvents(), {
    terminator: 'data: [DONE]\n\n',
    abort: upstream.abort,
    onFinish: meter.recordWhenStreamEnds(() => estimateChatUsage(body.messages, upstream.completionText())),
  });
  return sseResponse(stream);
};
