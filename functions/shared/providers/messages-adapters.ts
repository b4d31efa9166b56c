import type { ChannelType } from '../store/channels.js';
import { anthropicMessagesProvider } from './anthropic/anthropic-provider.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The messages adapter of each channel type that declares one in `providerCapabilities`. */
export const messagesAdapters: AdaptersOf<'messages'> = { anthropic: anthropicMessagesProvider };

export const messagesAdapterOf = (type: ChannelType) => adapterIn(messagesAdapters, type, 'messages');
