import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { chatProviders } from '../shared/providers/chat-providers.js';
import { messagesProviders } from '../shared/providers/messages-providers.js';
import { channelCall, type ClientOptions } from '../shared/routing/channel-call.js';
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

/** Whether a channel can serve /v1/messages at all (natively or through chat). */
export const servesMessages = (channel: Channel) =>
  messagesProviders[channel.type] !== undefined || chatProviders[channel.type] !== undefined;

export const createMessage = async (
  body: AnthropicMessagesRequest,
  channel: Channel,
  model: CatalogModel,
  signal: AbortSignal,
  clientOptions: ClientOptions,
): Promise<AnthropicMessage> => {
  const native = messagesProviders[channel.type];
  if (native) return native.create(channelCall(body, channel, model, signal, clientOptions));
  const completion = await chatProviders[channel.type]!.complete(
    channelCall(anthropicToChatRequest(body, { reasoning: model.reasoning }), channel, model, signal, clientOptions),
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
  const native = messagesProviders[channel.type];
  if (native) return native.stream(channelCall(body, channel, model, signal, clientOptions));
  const chunks = await chatProviders[channel.type]!.stream(
    channelCall(anthropicToChatRequest(body, { reasoning: model.reasoning }), channel, model, signal, clientOptions),
  );
  const translator = createChatToAnthropicStream({ model: model.id, inputTokens });
  return (async function* translated(): AsyncGenerator<AnthropicStreamEvent> {
    for await (const chunk of chunks) yield* translator.push(chunk);
    yield* translator.end();
  })();
};
