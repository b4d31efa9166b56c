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
import type { ItemReplay } from '../shared/protocols/openai-responses/item-replay.js';
import { nativeInput, replayLookup } from './responses-conversation.js';
import { chatReplaySink, keptEvents, readCompletionReplay, tapChatChunks, translatedReplay } from './responses-keep.js';
import { nativeRewriter } from './responses-native-ids.js';
import { nativeRequestBody, type ResponsesTurn } from './responses-turn.js';

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

/** The turn's response context: the gateway's id, the public model, and what the envelope echoes. */
export const newResponseContext = (
  request: ResponsesRequest,
  model: CatalogModel,
  id: string,
  store: boolean,
  previousResponseId: string | null,
): ResponseContext => ({
  id,
  createdAt: Math.floor(Date.now() / 1000),
  model: model.id,
  request,
  store,
  previousResponseId,
});

/** What a channel's answer is: the Response the client receives, and its items' replay data. */
export interface ChannelResponse {
  readonly response: ResponseObject;
  readonly replay: Record<string, ItemReplay>;
}

/** The chat request a translated channel receives: the whole conversation, replay data put back. */
const chatRequestOf = (turn: ResponsesTurn, stream: boolean, channel: Channel, model: CatalogModel) => {
  const { request, conversation } = turn;
  const chat = conversation
    ? toChatRequest({ ...request, input: conversation.items as never, stream }, replayLookup(conversation.replay))
    : toChatRequest({ ...request, stream });
  return fitChatRequest(chat, { reasoning: reasonsOn(channel, model) });
};

const nativeBody = (turn: ResponsesTurn) =>
  nativeRequestBody(turn, turn.conversation ? nativeInput(turn.conversation) : undefined);

/** One whole Response from one channel, under the gateway's id and the public model id. */
export const createOn = async (
  channel: Channel,
  turn: ResponsesTurn,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<ChannelResponse> => {
  if (isNative(channel)) {
    const upstream = await responsesAdapterOf(channel.type).create(
      channelCall(nativeBody(turn), channel, model, signal),
    );
    const rewriter = nativeRewriter(turn);
    return { response: rewriter.response(upstream), replay: rewriter.replay };
  }
  const completion = await chatAdapterOf(channel.type).complete(
    channelCall(chatRequestOf(turn, false, channel, model), channel, model, signal),
  );
  const response = fromChatCompletion(completion, turn.context);
  const sink = chatReplaySink();
  readCompletionReplay(completion, sink);
  return { response, replay: translatedReplay(response.output, sink) };
};

/**
 * The Responses event stream from one channel, under the gateway's ids and the public model id, the
 * finished response kept before its last event; resolves once the upstream has accepted the request.
 */
export const streamOn = async (
  channel: Channel,
  turn: ResponsesTurn,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<AsyncIterable<ResponseStreamEvent>> => {
  if (isNative(channel)) {
    const events = await responsesAdapterOf(channel.type).stream(channelCall(nativeBody(turn), channel, model, signal));
    const rewriter = nativeRewriter(turn);
    const rewritten = (async function* nativeEvents() {
      for await (const event of events) yield rewriter.event(event);
    })();
    return keptEvents(rewritten, turn, () => rewriter.replay);
  }
  const sink = chatReplaySink();
  const chunks = await chatAdapterOf(channel.type).stream(
    channelCall(chatRequestOf(turn, true, channel, model), channel, model, signal),
  );
  return keptEvents(responsesEventsFromChat(tapChatChunks(chunks, sink), turn.context), turn, (response) =>
    translatedReplay(response.output, sink),
  );
};
