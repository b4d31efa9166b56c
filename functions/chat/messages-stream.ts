import type { RequestMeter } from '../shared/accounting/request-meter.js';
import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { errorBody, toGatewayError } from '../shared/http/error-response.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { AnthropicMessagesRequest } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import type {
  AnthropicStreamEvent,
  AnthropicUsage,
} from '../shared/protocols/anthropic-messages/anthropic-messages-result.js';
import { channelCall, type ClientOptions } from '../shared/routing/channel-call.js';
import { openMessagesPassThrough } from '../shared/streaming/open-pass-through.js';
import type { PassThroughStream } from '../shared/streaming/pass-through-stream.js';
import type { Channel } from '../shared/store/channels.js';
import { SseStream, sseResponse, type OutgoingEvent } from '../shared/streaming/sse-response.js';
import { streamMessageEvents } from './messages-channel.js';
import { anthropicTokenUsage } from '../shared/protocols/anthropic-messages/messages-usage.js';

const definedEntries = (usage: object | null | undefined) =>
  Object.fromEntries(Object.entries(usage ?? {}).filter(([, value]) => typeof value === 'number'));

/**
 * A streamed Messages answer: Anthropic's named events (`event: <type>`), under the public model id,
 * forwarded as they arrive; a failure mid-stream becomes one `error` event in Anthropic's envelope.
 */
export const streamMessages = async (
  body: AnthropicMessagesRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
  inputTokens: number,
  clientOptions: ClientOptions,
): Promise<GatewayResponse> => {
  const upstreamCall = upstreamCallFor(client);
  const passThroughOptions = {
    publicModel: model.id,
    onUsage: (usage: Partial<AnthropicUsage>) => meter.usage(anthropicTokenUsage(usage)),
  };
  const { result } = await withFailover(
    channels,
    (candidate): Promise<PassThroughStream | AsyncIterable<AnthropicStreamEvent>> =>
      openMessagesPassThrough(
        channelCall(body, candidate, model, upstreamCall.signal, clientOptions),
        passThroughOptions,
      ) ?? streamMessageEvents(body, candidate, model, upstreamCall.signal, inputTokens, clientOptions),
    { signal: upstreamCall.signal, meter },
  );
  const passThrough = 'events' in result ? result : undefined;
  const events: Iterable<AnthropicStreamEvent> | AsyncIterable<AnthropicStreamEvent> = 'events' in result ? [] : result;

  let usage: Partial<AnthropicUsage> = {};
  let outputText = '';
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const event of events) {
      switch (event.type) {
        case 'message_start':
          event.message.model = model.id;
          usage = { ...definedEntries(event.message.usage) };
          break;
        case 'message_delta':
          usage = { ...usage, ...definedEntries(event.usage) };
          meter.usage(anthropicTokenUsage(usage));
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') outputText += event.delta.text;
          else if (event.delta.type === 'input_json_delta') outputText += event.delta.partial_json;
          else if (event.delta.type === 'thinking_delta') outputText += event.delta.thinking;
          break;
        default:
          break;
      }
      yield { event: event.type, data: event };
    }
  }

  const stream = new SseStream(passThrough?.events ?? clientEvents(), {
    abort: () => upstreamCall.abort(),
    onFinish: meter.recordWhenStreamEnds(() =>
      anthropicTokenUsage(
        { input_tokens: inputTokens, output_tokens: estimateTokens(passThrough?.completionText() ?? outputText) },
        'estimate',
      ),
    ),
    errorEvent: (error) => ({ event: 'error', data: errorBody(toGatewayError(error), 'anthropic') }),
  });
  return sseResponse(stream);
};
