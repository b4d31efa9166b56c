import type { ChannelType } from '../store/channels.js';
import { anthropicChatProvider } from './anthropic/anthropic-provider.js';
import { bedrockChatProvider } from './bedrock/bedrock-provider.js';
import { demoProvider } from './demo/demo-provider.js';
import { geminiChatProvider } from './gemini/gemini-provider.js';
import { openAiProvider } from './openai/openai-provider.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The chat adapter of each channel type that declares one in `providerCapabilities`. */
export const chatAdapters: AdaptersOf<'chat'> = {
  openai: openAiProvider,
  anthropic: anthropicChatProvider,
  gemini: geminiChatProvider,
  bedrock: bedrockChatProvider,
  demo: demoProvider,
};

export const chatAdapterOf = (type: ChannelType) => adapterIn(chatAdapters, type, 'chat');
