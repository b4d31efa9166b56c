import type { ChannelType } from '../store/channels.js';
import { anthropicMessagesProvider } from './anthropic/anthropic-provider.js';
import type { MessagesProvider } from './messages-provider.js';

/** Channel types that serve /v1/messages natively; every other chat-capable type is served by translation. */
export const messagesProviders: Readonly<Partial<Record<ChannelType, MessagesProvider>>> = {
  anthropic: anthropicMessagesProvider,
};
