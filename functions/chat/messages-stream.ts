import type { RequestMeter } from '../shared/middleware/request-meter.js';
import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { errorBody, toGatewayError } from '../shared/http/error-response.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { AnthropicMessagesRequest } from '../shared/protocols/anthropic-messages/anthropic-messages-request.js';
import type { AnthropicUsage } from '../shared/protocols/anthropic-messages/anthropic-messages-result.js';
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
): Promise<GatewayResponse> => {
  const upstreamCall = upstreamCallFor(client);
  const { result: events } = await withFailover(
    channels,
    (candidate) => streamMessageEvents(body, candidate, model, upstreamCall.signal, inputTokens),
    { signal: upstreamCall.signal, meter },
  );

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

  const stream = new SseStream(clientEvents(), {
    abort: () => upstreamCall.abort(),
    onFinish: meter.recordWhenStreamEnds(() =>
      anthropicTokenUsage({ input_tokens: inputTokens, output_tokens: estimateTokens(outputText) }, 'estimate'),
    ),
    errorEvent: (error) => ({ event: 'error', data: errorBody(toGatewayError(error), 'anthropic') }),
  });
  return sseResponse(stream);
};
