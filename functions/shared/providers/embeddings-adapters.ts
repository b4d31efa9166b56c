import type { ChannelType } from '../store/channels.js';
import { onFirstCall } from './deferred-adapter.js';
import type { EmbeddingsProvider } from './embeddings-provider.js';
import { openAiEmbeddings } from './openai/openai-embeddings.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

const embeddingsMethods: Record<keyof EmbeddingsProvider, true> = { embed: true };

/** The embeddings adapter of each channel type that declares one in `providerCapabilities`; all but OpenAI's load on first use. */
export const embeddingsAdapters: AdaptersOf<'embeddings'> = {
  openai: openAiEmbeddings,
  gemini: onFirstCall(async () => (await import('./gemini/gemini-embeddings.js')).geminiEmbeddings, embeddingsMethods),
  demo: onFirstCall(async () => (await import('./demo/demo-embeddings.js')).demoEmbeddings, embeddingsMethods),
};

export const embeddingsAdapterOf = (type: ChannelType) => adapterIn(embeddingsAdapters, type, 'embeddings');
