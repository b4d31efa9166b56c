import type { AnthropicMessagesRequest } from '../protocols/anthropic-messages/anthropic-messages-request.js';
import type { AnthropicUsage } from '../protocols/anthropic-messages/anthropic-messages-result.js';
import type { ChatCompletionRequest } from '../protocols/openai-chat/chat-completion-request.js';
import type { TokenUsage } from '../accounting/token-usage.js';
import { openAnthropicMessagesStream } from '../providers/anthropic/anthropic-provider.js';
import { openOpenAiStream } from '../providers/openai/openai-provider.js';
import type { ChannelCall } from '../providers/channel-call.js';
import { anthropicMessagesPassThrough } from './pass-through-anthropic-messages.js';
import { openAiChatPassThrough } from './pass-through-openai-chat.js';
import type { PassThroughStream } from './pass-through-stream.js';

/**
 * Where a client's stream can be relayed byte for byte: the channel speaks the client's own protocol.
 * Each opener resolves once the upstream accepted the stream, or rejects before anything reached the
 * client (so failover still applies); `undefined` means the channel needs translation.
 */

export interface ChatPassThroughOptions {
  readonly publicModel: string;
  readonly includeUsage: boolean;
  readonly onUsage: (usage: TokenUsage) => void;
}

export const openChatPassThrough = (
  call: ChannelCall<ChatCompletionRequest>,
  options: ChatPassThroughOptions,
): Promise<PassThroughStream> | undefined => {
  if (call.channel.type !== 'openai') return undefined;
  return openOpenAiStream(call).then((response) =>
    openAiChatPassThrough(response, { ...options, idleMs: call.timeouts.idleMs }),
  );
};

export interface MessagesPassThroughOptions {
  readonly publicModel: string;
  readonly onUsage: (usage: Partial<AnthropicUsage>) => void;
}

export const openMessagesPassThrough = (
  call: ChannelCall<AnthropicMessagesRequest>,
  options: MessagesPassThroughOptions,
): Promise<PassThroughStream> | undefined => {
  if (call.channel.type !== 'anthropic') return undefined;
  return openAnthropicMessagesStream(call).then((response) =>
    anthropicMessagesPassThrough(response, { ...options, idleMs: call.timeouts.idleMs }),
  );
};
