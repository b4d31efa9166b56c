import type { ChannelCall } from '../routing/channel-call.js';
import type { EmbeddingsRequest, EmbeddingsResult } from '../schemas/embeddings-request.js';
import type { ChannelType } from '../store/channels.js';
import { demoEmbeddings } from './demo/demo-embeddings.js';
import { openAiEmbeddings } from './openai/openai-embeddings.js';

export type EmbeddingsCall = ChannelCall<EmbeddingsRequest>;

/** Rejects with an UpstreamError when the channel fails (the router may then try another). */
export interface EmbeddingsProvider {
  embed(call: EmbeddingsCall): Promise<EmbeddingsResult>;
}

/** The embeddings adapter of each channel type; a type without one is skipped when routing embeddings. */
export const embeddingsProviders: Readonly<Partial<Record<ChannelType, EmbeddingsProvider>>> = {
  openai: openAiEmbeddings,
  demo: demoEmbeddings,
};
