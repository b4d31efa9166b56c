import type { EmbeddingsRequest, EmbeddingsResult } from '../schemas/embeddings-request.js';
import type { ChannelCall } from './channel-call.js';

export type EmbeddingsCall = ChannelCall<EmbeddingsRequest>;

/** Rejects with an UpstreamError when the channel fails (the router may then try another). */
export interface EmbeddingsProvider {
  embed(call: EmbeddingsCall): Promise<EmbeddingsResult>;
}
