import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { adapterOf, providerRegistry } from '../shared/providers/provider-registry.js';
import { channelCall } from '../shared/routing/channel-call.js';
import type { AnthropicMessagesRequest } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import type {
  AnthropicMessage,
  AnthropicStreamEvent,
} from '../shared/protocols/anthropic-messages/anthropic-messages-result.js';
import type { Channel } from '../shared/store/channels.js';
import { anthropicToChatRequest } from '../shared/protocols/anthropic-messages/anthropic-to-chat-request.js';
import { chatToAnthropicMessage } from '../shared/protocols/anthropic-messages/chat-to-anthropic-message.js';
import { createChatToAnthropicStream } from '../shared/protocols/anthropic-messages/chat-to-anthropic-stream.js';

/**
 * One channel's answer to a Messages request: native where the channel type speaks the Messages
 * format, otherwise translated to chat and back. Either way the caller sees Anthropic shapes.
 */

export const createMessage = async (
  body: AnthropicMessagesRequest,
  channel: Channel,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<AnthropicMessage> => {
  const native = providerRegistry[channel.type].messages;
  if (native) return native.create(channelCall(body, channel, model, signal));
  const completion = await adapterOf(channel.type, 'chat').complete(
    channelCall(anthropicToChatRequest(body), channel, model, signal),
  );
  return chatToAnthropicMessage(completion, model.id);
};

export const streamMessageEvents = async (
  body: AnthropicMessagesRequest,
  channel: Channel,
  model: CatalogModel,
  signal: AbortSignal,
  inputTokens: number,
): Promise<AsyncIterable<AnthropicStreamEvent>> => {
  const native = providerRegistry[channel.type].messages;
  if (native) return native.stream(channelCall(body, channel, model, signal));
  const chunks = await adapterOf(channel.type, 'chat').stream(
    channelCall(anthropicToChatRequest(body), channel, model, signal),
  );
  const translator = createChatToAnthropicStream({ model: model.id, inputTokens });
  return (async function* translated(): AsyncGenerator<AnthropicStreamEvent> {
    for await (const chunk of chunks) yield* translator.push(chunk);
    yield* translator.end();
  })();
};
