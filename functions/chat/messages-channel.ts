import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { hasAdapter } from '../shared/providers/provider-capabilities.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { messagesAdapterOf } from '../shared/providers/messages-adapters.js';
import { channelCall, reasonsOn } from '../shared/routing/channel-call.js';
import type { ClientOptions } from '../shared/protocols/client-options.js';
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
  clientOptions: ClientOptions,
): Promise<AnthropicMessage> => {
  if (hasAdapter(channel.type, 'messages'))
    return messagesAdapterOf(channel.type).create(channelCall(body, channel, model, signal, clientOptions));
  const completion = await chatAdapterOf(channel.type).complete(
    channelCall(
      anthropicToChatRequest(body, { reasoning: reasonsOn(channel, model) }),
      channel,
      model,
      signal,
      clientOptions,
    ),
  );
  return chatToAnthropicMessage(completion, model.id);
};

export const streamMessageEvents = async (
  body: AnthropicMessagesRequest,
  channel: Channel,
  model: CatalogModel,
  signal: AbortSignal,
  inputTokens: number,
  clientOptions: ClientOptions,
): Promise<AsyncIterable<AnthropicStreamEvent>> => {
  if (hasAdapter(channel.type, 'messages'))
    return messagesAdapterOf(channel.type).stream(channelCall(body, channel, model, signal, clientOptions));
  const chunks = await chatAdapterOf(channel.type).stream(
    channelCall(
      anthropicToChatRequest(body, { reasoning: reasonsOn(channel, model) }),
      channel,
      model,
      signal,
      clientOptions,
    ),
  );
  const translator = createChatToAnthropicStream({ model: model.id, inputTokens });
  return (async function* translated(): AsyncGenerator<AnthropicStreamEvent> {
    for await (const chunk of chunks) yield* translator.push(chunk);
    yield* translator.end();
  })();
};
