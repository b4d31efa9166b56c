import type { ChatCompletionRequest } from '../protocols/openai-chat/chat-completion-request.js';
import type { TokenUsage } from '../accounting/token-usage.js';
import { openOpenAiStream } from '../providers/openai/openai-provider.js';
import type { ChannelCall } from '../providers/channel-call.js';
import { openAiChatPassThrough } from './pass-through-openai-chat.js';
import type { PassThroughStream } from './pass-through-stream.js';

/**
 * Where a chat completions stream can be relayed byte for byte: the channel speaks OpenAI's chat
 * format. The opener resolves once the upstream accepted the stream, or rejects before anything
 * reached the client (so failover still applies); `undefined` means the channel needs translation.
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
