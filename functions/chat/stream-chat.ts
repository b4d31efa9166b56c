import type { RequestMeter } from '../shared/accounting/request-meter.js';
import { contentText, estimateTokens } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { chatProviders } from '../shared/providers/chat-providers.js';
import { upstreamModelName } from '../shared/relay/order-channels.js';
import { channelTimeouts } from '../shared/relay/upstream-http.js';
import { withFailover } from '../shared/relay/with-failover.js';
import type { ChatCompletionRequest } from '../shared/schemas/chat-completion-request.js';
import { toTokenUsage, type ChatCompletionChunk, type TokenUsage } from '../shared/schemas/chat-completion-result.js';
import { SseStream, sseResponse, type OutgoingEvent, type StreamOutcome } from '../shared/streaming/sse-response.js';
import type { Channel } from '../shared/store/channels.js';

/** What the client saw of the answer, for an estimate when the stream ends before the upstream's usage. */
const estimateUsage = (body: ChatCompletionRequest, completionText: string): TokenUsage => {
  const promptTokens = estimateTokens(body.messages.map((message) => contentText(message.content)).join('\n'));
  const completionTokens = estimateTokens(completionText);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cachedTokens: 0, reasoningTokens: 0, source: 'estimate' };
};

const usageStatus = (outcome: StreamOutcome) =>
  outcome.kind === 'completed' ? 'success' : outcome.kind === 'aborted' ? 'client_aborted' : 'upstream_error';

/**
 * A streamed chat completion: once a channel has accepted the request, its chunks go to the client as
 * they arrive, under the public model id. The usage chunk goes only to clients that asked for it;
 * the gateway reads it either way.
 */
export const streamChat = async (
  body: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  defer: (work: Promise<unknown>) => void,
): Promise<GatewayResponse> => {
  const upstreamCall = new AbortController();
  const { result: chunks, channel, attempts } = await withFailover(channels, (candidate) =>
    chatProviders[candidate.type]!.stream({
      request: body,
      upstreamModel: upstreamModelName(candidate, model),
      channel: candidate,
      signal: upstreamCall.signal,
      timeouts: channelTimeouts(candidate),
    }),
  );
  meter.served(channel, attempts);

  const includeUsage = body.stream_options?.include_usage === true;
  let completionText = '';
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of chunks as AsyncIterable<ChatCompletionChunk>) {
      if (chunk.usage) meter.usage(toTokenUsage(chunk.usage));
      for (const choice of chunk.choices) {
        if (typeof choice.delta?.content === 'string') completionText += choice.delta.content;
        for (const call of choice.delta?.tool_calls ?? []) completionText += call.function?.arguments ?? '';
      }
      if (!includeUsage) {
        if (chunk.choices.length === 0) continue;
        delete chunk.usage;
      }
      chunk.model = model.id;
      yield { data: chunk };
    }
  }

  let settle: (outcome: StreamOutcome) => void = () => undefined;
  const ended = new Promise<StreamOutcome>((resolve) => {
    settle = resolve;
  });
  defer(ended.then((outcome) => meter.record(usageStatus(outcome), 200, estimateUsage(body, completionText))));

  const stream = new SseStream(clientEvents(), {
    terminator: 'data: [DONE]\n\n',
    abort: () => upstreamCall.abort(),
    onFinish: settle,
  });
  return sseResponse(stream);
};
