import type { ChannelType } from '../store/channels.js';
import { demoEmbeddings } from './demo/demo-embeddings.js';
import { geminiEmbeddings } from './gemini/gemini-embeddings.js';
import { openAiEmbeddings } from './openai/openai-embeddings.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The embeddings adapter of each channel type that declares one in `providerCapabilities`. */
export const embeddingsAdapters: AdaptersOf<'embeddings'> = {
  openai: openAiEmbeddings,
  gemini: geminiEmbeddings,
  demo: demoEmbeddings,
};

export const embeddingsAdapterOf = (type: ChannelType) => adapterIn(embeddingsAdapters, type, 'embeddings');
