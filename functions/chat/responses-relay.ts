import { randomUUID } from 'node:crypto';
import { channelCall, reasonsOn } from '../shared/routing/channel-call.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { hasAdapter } from '../shared/providers/provider-capabilities.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { responsesAdapterOf } from '../shared/providers/responses-adapters.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import type { ResponsesRequest } from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponseObject, ResponseStreamEvent } from '../shared/protocols/openai-responses/responses-result.js';
import type { Channel } from '../shared/store/channels.js';
import {
  fromChatCompletion,
  responsesEventsFromChat,
  type ResponseContext,
} from '../shared/protocols/openai-responses/responses-from-chat.js';
import { toChatRequest } from '../shared/protocols/openai-responses/responses-to-chat-request.js';
import { fitChatRequest } from '../shared/protocols/openai-chat/fit-chat-request.js';

/**
 * How each channel serves /v1/responses: natively when its type has a Responses adapter and its
 * endpoint list allows `responses`; otherwise by translation to chat when it serves chat.
 */
export const isNative = (channel: Channel): boolean =>
  hasAdapter(channel.type, 'responses') && (channel.endpoints === null || channel.endpoints.includes('responses'));

/** Native channels and chat channels in one order: priority first, native before translated among equals. */
export const responsesChannels = (model: CatalogModel): Channel[] => {
  const native = orderChannels(model, 'responses', isNative);
  const translated = orderChannels(model, 'chat', (channel) => !isNative(channel));
  return [...native, ...translated].sort((a, b) => b.priority - a.priority);
};

export const newResponseContext = (request: ResponsesRequest, model: CatalogModel): ResponseContext => ({
  id: `resp_${randomUUID().replaceAll('-', '')}`,
  createdAt: Math.floor(Date.now() / 1000),
  model: model.id,
  request,
});

/** One whole Response from one channel, under the public model id. */
export const createOn = async (
  channel: Channel,
  request: ResponsesRequest,
  context: ResponseContext,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<ResponseObject> => {
  if (isNative(channel)) {
    const response = await responsesAdapterOf(channel.type).create(channelCall(request, channel, model, signal));
    response.model = model.id;
    return response;
  }
  const completion = await chatAdapterOf(channel.type).complete(
    channelCall(
      fitChatRequest(toChatRequest({ ...request, stream: false }), { reasoning: reasonsOn(channel, model) }),
      channel,
      model,
      signal,
    ),
  );
  return fromChatCompletion(completion, context);
};

/** Rewrites the model of the Response an event carries to the public id. */
const withPublicModel = (event: ResponseStreamEvent, model: string): ResponseStreamEvent => {
  const response = event.response as { model?: unknown } | undefined;
  if (response && typeof response === 'object' && 'model' in response) response.model = model;
  return event;
};

/** The Responses event stream from one channel; resolves once the upstream has accepted the request. */
export const streamOn = async (
  channel: Channel,
  request: ResponsesRequest,
  context: ResponseContext,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<AsyncIterable<ResponseStreamEvent>> => {
  if (isNative(channel)) {
    const events = await responsesAdapterOf(channel.type).stream(channelCall(request, channel, model, signal));
    return (async function* nativeEvents() {
      for await (const event of events) yield withPublicModel(event, model.id);
    })();
  }
  const chunks = await chatAdapterOf(channel.type).stream(
    channelCall(
      fitChatRequest(toChatRequest({ ...request, stream: true }), { reasoning: reasonsOn(channel, model) }),
      channel,
      model,
      signal,
    ),
  );
  return responsesEventsFromChat(chunks, context);
};
