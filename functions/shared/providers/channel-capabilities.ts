import type { ChannelType, EndpointKind } from '../store/channels.js';

/**
 * What each upstream type can serve, natively or by the gateway's translation. A channel's own
 * `endpoints` list narrows this; it never widens it.
 */
export const channelCapabilities: Readonly<Record<ChannelType, readonly EndpointKind[]>> = {
  openai: ['chat', 'messages', 'responses', 'embeddings', 'images', 'speech'],
  anthropic: ['chat', 'messages', 'responses'],
  gemini: ['chat', 'messages', 'responses', 'embeddings'],
  bedrock: ['chat', 'messages', 'responses'],
  demo: ['chat', 'messages', 'responses', 'embeddings', 'images', 'speech'],
};

/** Who `owned_by` names for a model no admin described. */
export const defaultOwner: Readonly<Record<ChannelType, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  bedrock: 'amazon-bedrock',
  demo: 'model-gateway',
};

/** The client path of each endpoint kind, as the model list reports it. */
export const endpointPaths: Readonly<Record<EndpointKind, string>> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
};
