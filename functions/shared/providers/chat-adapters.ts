import type { ChannelType } from '../store/channels.js';
import { onFirstCall } from './deferred-adapter.js';
import { openAiProvider } from './openai/openai-provider.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';
import type { ChatProvider } from './provider.js';

const chatMethods: Record<keyof ChatProvider, true> = { complete: true, stream: true };

/**
 * The chat adapter of each channel type that declares one in `providerCapabilities`. OpenAI-compatible
 * servers are the common case and load with the function; the other vendors on first use.
 */
export const chatAdapters: AdaptersOf<'chat'> = {
  openai: openAiProvider,
  anthropic: onFirstCall(
    async () => (await import('./anthropic/anthropic-provider.js')).anthropicChatProvider,
    chatMethods,
  ),
  gemini: onFirstCall(async () => (await import('./gemini/gemini-provider.js')).geminiChatProvider, chatMethods),
  bedrock: onFirstCall(async () => (await import('./bedrock/bedrock-provider.js')).bedrockChatProvider, chatMethods),
  demo: onFirstCall(async () => (await import('./demo/demo-provider.js')).demoProvider, chatMethods),
};

export const chatAdapterOf = (type: ChannelType) => adapterIn(chatAdapters, type, 'chat');
