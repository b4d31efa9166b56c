import type { EmbeddingsResult } from '../../schemas/embeddings-request.js';
import type { EmbeddingsProvider } from '../embeddings-provider.js';
import { postOpenAiJson } from './openai-json-call.js';

const isEmbeddingsResult = (payload: unknown): payload is EmbeddingsResult =>
  typeof payload === 'object' && payload !== null && Array.isArray((payload as { data?: unknown }).data);

/** `POST {baseUrl}/embeddings`: the request as the client sent it, under the upstream's model name. */
export const openAiEmbeddings: EmbeddingsProvider = {
  embed: (call) =>
    postOpenAiJson(
      call,
      '/embeddings',
      { ...call.request, model: call.upstreamModel },
      isEmbeddingsResult,
      'an embeddings list',
    ),
};
