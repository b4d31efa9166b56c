import { endpointKinds, type ChannelType, type EndpointKind } from '../store/channels.js';
import { anthropicChatProvider, anthropicMessagesProvider } from './anthropic/anthropic-provider.js';
import { bedrockChatProvider } from './bedrock/bedrock-provider.js';
import { demoEmbeddings } from './demo/demo-embeddings.js';
import { demoImages } from './demo/demo-image.js';
import { demoProvider } from './demo/demo-provider.js';
import { demoSpeech } from './demo/demo-speech.js';
import type { EmbeddingsProvider } from './embeddings-provider.js';
import { geminiEmbeddings } from './gemini/gemini-embeddings.js';
import { geminiChatProvider } from './gemini/gemini-provider.js';
import type { ImagesProvider } from './images-provider.js';
import type { MessagesProvider } from './messages-provider.js';
import { openAiEmbeddings } from './openai/openai-embeddings.js';
import { openAiImages } from './openai/openai-images.js';
import { openAiProvider } from './openai/openai-provider.js';
import { openAiResponses } from './openai/openai-responses.js';
import { openAiSpeech } from './openai/openai-speech.js';
import type { ChatProvider } from './provider.js';
import type { ResponsesProvider } from './responses-provider.js';
import type { SpeechProvider } from './speech-provider.js';

/**
 * What one channel type serves and which adapter serves it. An endpoint without an adapter is not
 * served, so a capability can never be advertised without the code behind it.
 */
export interface ProviderEntry {
  /** Who `owned_by` names for a model no admin described. */
  readonly owner: string;
  /** Chat completions; also /v1/messages and /v1/responses by translation where there is no native adapter. */
  readonly chat?: ChatProvider;
  /** /v1/messages and /v1/messages/count_tokens in the Messages format itself. */
  readonly messages?: MessagesProvider;
  /** /v1/responses in the Responses format itself. */
  readonly responses?: ResponsesProvider;
  readonly embeddings?: EmbeddingsProvider;
  readonly images?: ImagesProvider;
  readonly speech?: SpeechProvider;
}

/** Every channel type, with its adapters. The only place that decides what a type can do. */
export const providerRegistry: Readonly<Record<ChannelType, ProviderEntry>> = {
  openai: {
    owner: 'openai',
    chat: openAiProvider,
    responses: openAiResponses,
    embeddings: openAiEmbeddings,
    images: openAiImages,
    speech: openAiSpeech,
  },
  anthropic: { owner: 'anthropic', chat: anthropicChatProvider, messages: anthropicMessagesProvider },
  gemini: { owner: 'google', chat: geminiChatProvider, embeddings: geminiEmbeddings },
  bedrock: { owner: 'amazon-bedrock', chat: bedrockChatProvider },
  demo: {
    owner: 'model-gateway',
    chat: demoProvider,
    embeddings: demoEmbeddings,
    images: demoImages,
    speech: demoSpeech,
  },
};

/** Whether an entry serves an endpoint kind, natively or by translation through chat. */
const serves = (entry: ProviderEntry, kind: EndpointKind): boolean => {
  switch (kind) {
    case 'chat':
      return entry.chat !== undefined;
    case 'messages':
      return entry.messages !== undefined || entry.chat !== undefined;
    case 'responses':
      return entry.responses !== undefined || entry.chat !== undefined;
    case 'embeddings':
      return entry.embeddings !== undefined;
    case 'images':
      return entry.images !== undefined;
    case 'speech':
      return entry.speech !== undefined;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown endpoint kind ${String(unreachable)}`);
    }
  }
};

/** What a channel type can serve. A channel's own `endpoints` list narrows this; it never widens it. */
export const servedEndpoints = (type: ChannelType): EndpointKind[] =>
  endpointKinds.filter((kind) => serves(providerRegistry[type], kind));

/** Whether a channel type serves an endpoint kind. */
export const typeServes = (type: ChannelType, kind: EndpointKind): boolean => serves(providerRegistry[type], kind);

type AdapterKind = Exclude<keyof ProviderEntry, 'owner'>;

/**
 * The adapter of a channel the router chose. The router only chooses channels whose type serves
 * the endpoint, so a missing adapter here is a defect in the gateway, not a client error.
 */
export const adapterOf = <Kind extends AdapterKind>(
  type: ChannelType,
  kind: Kind,
): NonNullable<ProviderEntry[Kind]> => {
  const adapter = providerRegistry[type][kind];
  if (adapter === undefined) throw new Error(`channel type '${type}' has no ${kind} adapter`);
  return adapter as NonNullable<ProviderEntry[Kind]>;
};

/** Whether a channel type has an adapter of its own for a kind (not a translation through chat). */
export const hasAdapter = (type: ChannelType, kind: AdapterKind): boolean => providerRegistry[type][kind] !== undefined;
