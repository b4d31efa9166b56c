import type { AnthropicMessagesRequest } from '../protocols/anthropic-messages/anthropic-messages-request.js';
import type { AnthropicUsage } from '../protocols/anthropic-messages/anthropic-messages-result.js';
import { openAnthropicMessagesStream } from '../providers/anthropic/anthropic-provider.js';
import type { ChannelCall } from '../providers/channel-call.js';
import { anthropicMessagesPassThrough } from './pass-through-anthropic-messages.js';
import type { PassThroughStream } from './pass-through-stream.js';

/**
 * Where a Messages stream can be relayed byte for byte: the channel speaks Anthropic's Messages
 * format. The opener resolves once the upstream accepted the stream, or rejects before anything
 * reached the client (so failover still applies); `undefined` means the channel needs translation.
 */

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
