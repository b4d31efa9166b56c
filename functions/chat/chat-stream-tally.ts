import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { toTokenUsage, type ChatCompletionChunk } from '../shared/protocols/openai-chat/chat-completion-result.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { channelCall } from '../shared/routing/channel-call.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { Channel } from '../shared/store/channels.js';

/** Opens a chat stream on one channel: how every endpoint that streams through chat reaches an upstream. */
export const openChatOn =
  (request: ChatCompletionRequest, model: CatalogModel) =>
  (channel: Channel, signal: AbortSignal): Promise<AsyncIterable<ChatCompletionChunk>> =>
    chatAdapterOf(channel.type).stream(channelCall(request, channel, model, signal));

/**
 * Reads chat chunks on their way to the client: reported usage goes to the meter, and the answer
 * text (and tool arguments) is kept for an estimate when no usage arrives.
 */
export const chatStreamTally = (meter: RequestMeter) => {
  let text = '';
  return {
    text: (): string => text,
    async *read(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ChatCompletionChunk> {
      for await (const chunk of chunks) {
        if (chunk.usage) meter.usage(toTokenUsage(chunk.usage));
        for (const choice of chunk.choices) {
          if (typeof choice.delta?.content === 'string') text += choice.delta.content;
          for (const call of choice.delta?.tool_calls ?? []) text += call.function?.arguments ?? '';
        }
        yield chunk;
      }
    },
  };
};
