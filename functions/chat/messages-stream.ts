import type { RequestMeter } from '../shared/middleware/request-meter.js';
import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { errorBody, toGatewayError } from '../shared/http/error-response.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { meteredStream } from '../shared/middleware/metered-stream.js';
import type { AnthropicMessagesRequest } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import type {
  AnthropicStreamEvent,
  AnthropicUsage,
} from '../shared/protocols/anthropic-messages/anthropic-messages-result.js';
import { channelCall } from '../shared/routing/channel-call.js';
import type { ClientOptions } from '../shared/protocols/client-options.js';
import { openMessagesPassThrough } from '../shared/streaming/open-messages-pass-through.js';
import type { Channel } from '../shared/store/channels.js';
import type { OutgoingEvent } from '../shared/streaming/sse-response.js';
import { streamMessageEvents } from './messages-channel.js';
import { anthropicTokenUsage } from '../shared/protocols/anthropic-messages/messages-usage.js';

const definedEntries = (usage: object | null | undefined) =>
  Object.fromEntries(Object.entries(usage ?? {}).filter(([, value]) => typeof value === 'number'));

/**
 * A streamed Messages answer: Anthropic's named events (`event: <type>`), under the public model id,
 * forwarded as they arrive; a failure mid-stream becomes one `error` event in Anthropic's envelope.
 */
export const streamMessages = (
  body: AnthropicMessagesRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
  inputTokens: number,
  clientOptions: ClientOptions,
): Promise<GatewayResponse> => {
  let usage: Partial<AnthropicUsage> = {};
  let outputText = '';
  async function* clientEvents(events: AsyncIterable<AnthropicStreamEvent>): AsyncGenerator<OutgoingEvent> {
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

  return meteredStream({
    channels,
    meter,
    client,
    open: (channel, signal) => streamMessageEvents(body, channel, model, signal, inputTokens, clientOptions),
    openPassThrough: (channel, signal) =>
      openMessagesPassThrough(channelCall(body, channel, model, signal, clientOptions), {
        publicModel: model.id,
        onUsage: (reported: Partial<AnthropicUsage>) => meter.usage(anthropicTokenUsage(reported)),
      }),
    toClient: clientEvents,
    estimate: (relayedText) =>
      anthropicTokenUsage(
        { input_tokens: inputTokens, output_tokens: estimateTokens(relayedText ?? outputText) },
        'estimate',
      ),
    framing: { errorEvent: (error) => ({ event: 'error', data: errorBody(toGatewayError(error), 'anthropic') }) },
  });
};
