import type { EndpointKind } from '../shared/store/channels.js';

/** The client path of each endpoint kind, as the model list reports it. */
export const endpointPaths: Readonly<Record<EndpointKind, string>> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
};
