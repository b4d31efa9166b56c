import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { meteredStream } from '../shared/middleware/metered-stream.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletionChunk } from '../shared/protocols/openai-chat/chat-completion-result.js';
import type { OutgoingEvent } from '../shared/streaming/sse-response.js';
import type { Channel } from '../shared/store/channels.js';
import { chatStreamTally, openChatOn } from './chat-stream-tally.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { openChatPassThrough } from '../shared/streaming/open-chat-pass-through.js';

/**
 * A streamed chat completion: once a channel has accepted the request, its chunks go to the client as
 * they arrive, under the public model id. The usage chunk goes only to clients that asked for it;
 * the gateway reads it either way.
 */
export const streamChat = (
  body: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  const tally = chatStreamTally(meter);
  const includeUsage = body.stream_options?.include_usage === true;
  async function* clientEvents(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of tally.read(chunks)) {
      if (!includeUsage) {
        if (chunk.choices.length === 0) continue;
        delete chunk.usage;
      }
      chunk.model = model.id;
      yield { data: chunk };
    }
  }
  return meteredStream({
    channels,
    meter,
    client,
    open: openChatOn(body, model),
    openPassThrough: (channel, signal) =>
      openChatPassThrough(channelCall(body, channel, model, signal), {
        publicModel: model.id,
        includeUsage,
        onUsage: (usage) => meter.usage(usage),
      }),
    toClient: clientEvents,
    estimate: (relayedText) => estimateChatUsage(body.messages, relayedText ?? tally.text()),
    framing: { terminator: 'data: [DONE]\n\n' },
  });
};
