import { endpointKinds, type ChannelType, type EndpointKind } from '../store/channels.js';
import type { EmbeddingsProvider } from './embeddings-provider.js';
import type { ImagesProvider } from './images-provider.js';
import type { MessagesProvider } from './messages-provider.js';
import type { ChatProvider } from './provider.js';
import type { ResponsesProvider } from './responses-provider.js';
import type { SpeechProvider } from './speech-provider.js';

/** The contract an adapter of each kind implements. */
export interface AdapterContracts {
  /** Chat completions; also /v1/messages and /v1/responses by translation where there is no native adapter. */
  readonly chat: ChatProvider;
  /** /v1/messages and /v1/messages/count_tokens in the Messages format itself. */
  readonly messages: MessagesProvider;
  /** /v1/responses in the Responses format itself. */
  readonly responses: ResponsesProvider;
  readonly embeddings: EmbeddingsProvider;
  readonly images: ImagesProvider;
  readonly speech: SpeechProvider;
}

export type AdapterKind = keyof AdapterContracts;

/**
 * What each channel type has an adapter for, and who `owned_by` names for its models when no admin
 * described them. The only place that decides what a type can do; the `<kind>-adapters.ts` tables give
 * exactly these adapters (the compiler holds them to that). This file imports no adapter, so the model
 * list and the router read it without loading any vendor's code.
 */
export const providerCapabilities = {
  openai: { owner: 'openai', adapters: ['chat', 'responses', 'embeddings', 'images', 'speech'] },
  anthropic: { owner: 'anthropic', adapters: ['chat', 'messages'] },
  gemini: { owner: 'google', adapters: ['chat', 'embeddings'] },
  bedrock: { owner: 'amazon-bedrock', adapters: ['chat'] },
  demo: { owner: 'model-gateway', adapters: ['chat', 'embeddings', 'images', 'speech'] },
} as const satisfies Record<ChannelType, { readonly owner: string; readonly adapters: readonly AdapterKind[] }>;

/** Whether a channel type has an adapter of its own for a kind (not a translation through chat). */
export const hasAdapter = (type: ChannelType, kind: AdapterKind): boolean =>
  (providerCapabilities[type].adapters as readonly AdapterKind[]).includes(kind);

/** Whether a channel type serves an endpoint kind, natively or by translation through chat. */
export const typeServes = (type: ChannelType, kind: EndpointKind): boolean => {
  switch (kind) {
    case 'messages':
    case 'responses':
      return hasAdapter(type, kind) || hasAdapter(type, 'chat');
    case 'chat':
    case 'embeddings':
    case 'images':
    case 'speech':
      return hasAdapter(type, kind);
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown endpoint kind ${String(unreachable)}`);
    }
  }
};

/** What a channel type can serve. A channel's own `endpoints` list narrows this; it never widens it. */
export const servedEndpoints = (type: ChannelType): EndpointKind[] =>
  endpointKinds.filter((kind) => typeServes(type, kind));

/** Who `owned_by` names for a model of this type that no admin described. */
export const defaultOwner = (type: ChannelType): string => providerCapabilities[type].owner;

/** The channel types that declare an adapter of this kind. */
export type TypesWith<Kind extends AdapterKind> = {
  [Type in ChannelType]: Kind extends (typeof providerCapabilities)[Type]['adapters'][number] ? Type : never;
}[ChannelType];

/**
 * The adapters of one kind, one for each type that declares it and none for a type that does not:
 * the compiler holds every `<kind>-adapters.ts` table to `providerCapabilities`. One table a kind, so
 * that a function bundle loads only the vendors' code for the endpoints it serves.
 */
export type AdaptersOf<Kind extends AdapterKind> = { readonly [Type in TypesWith<Kind>]: AdapterContracts[Kind] };

/**
 * The adapter of a channel the router chose. The router only chooses channels whose type serves
 * the endpoint, so a missing adapter here is a defect in the gateway, not a client error.
 */
export const adapterIn = <Kind extends AdapterKind>(
  table: AdaptersOf<Kind>,
  type: ChannelType,
  kind: Kind,
): AdapterContracts[Kind] => {
  const adapter = (table as Partial<Record<ChannelType, AdapterContracts[Kind]>>)[type];
  if (adapter === undefined) throw new Error(`channel type '${type}' has no ${kind} adapter`);
  return adapter;
};
