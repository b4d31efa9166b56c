import type { ChannelType } from '../store/channels.js';
import { anthropicChatProvider } from './anthropic/anthropic-provider.js';
import { bedrockChatProvider } from './bedrock/bedrock-provider.js';
import { demoProvider } from './demo/demo-provider.js';
import { geminiChatProvider } from './gemini/gemini-provider.js';
import { openAiProvider } from './openai/openai-provider.js';
import type { ChatProvider } from './provider.js';

/** The chat adapter of each channel type; a type without one is skipped when routing chat. */
export const chatProviders: Readonly<Partial<Record<ChannelType, ChatProvider>>> = {
  openai: openAiProvider,
  demo: demoProvider,
  anthropic: anthropicChatProvider,
  gemini: geminiChatProvider,
  bedrock: bedrockChatProvider,
};
