import { contentText, estimateTokens } from '../shared/accounting/estimate-tokens.js';
import type { RequestMeter } from '../shared/accounting/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { chatProviders } from '../shared/providers/chat-providers.js';
import { upstreamModelName } from '../shared/relay/order-channels.js';
import { channelTimeouts } from '../shared/relay/upstream-http.js';
import { withFailover } from '../shared/relay/with-failover.js';
import type { ChatCompletionRequest } from '../shared/schemas/chat-completion-request.js';
import { toTokenUsage, type TokenUsage } from '../shared/schemas/chat-completion-result.js';
import type { Channel } from '../shared/store/channels.js';
import { SseStream, sseResponse, type OutgoingEvent, type StreamOutcome } from '../shared/streaming/sse-response.js';
import { createChatToGeminiStream } from '../shared/translation/chat-to-gemini-stream.js';

const usageStatus = (outcome: StreamOutcome) =>
  outcome.kind === 'completed' ? 'success' : outcome.kind === 'aborted' ? 'client_aborted' : 'upstream_error';

const estimateUsage = (body: ChatCompletionRequest, completionText: string): TokenUsage => {
  const promptTokens = estimateTokens(body.messages.map((message) => contentText(message.content)).join('\n'));
  const completionTokens = estimateTokens(completionText);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cachedTokens: 0, reasoningTokens: 0, source: 'estimate' };
};

/**
 * :streamGenerateContent?alt=sse served through chat: each chat chunk's text goes out as a
 * GenerateContentResponse event as it arrives (no terminator, as Google streams); a failure mid-stream
 * becomes one `{error}` event in Google's envelope.
 */
export const streamGeminiContent = async (
  chatRequest: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  defer: (work: Promise<unknown>) => void,
): Promise<GatewayResponse> => {
  const upstreamCall = new AbortController();
  const { result: chunks, channel, attempts } = await withFailover(channels, (candidate) =>
    chatProviders[candidate.type]!.stream({
      request: chatRequest,
      upstreamModel: upstreamModelName(candidate, model),
      channel: candidate,
      signal: upstreamCall.signal,
      timeouts: channelTimeouts(candidate),
    }),
  );
  meter.served(channel, attempts);

  let completionText = '';
  const translator = createChatToGeminiStream(model.id);
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of chunks) {
      if (chunk.usage) meter.usage(toTokenUsage(chunk.usage));
      for (const choice of chunk.choices) {
        if (typeof choice.delta?.content === 'string') completionText += choice.delta.content;
        for (const call of choice.delta?.tool_calls ?? []) completionText += call.function?.arguments ?? '';
      }
      for (const event of translator.push(chunk)) yield { data: event };
    }
    for (const event of translator.end()) yield { data: event };
  }

  let settle: (outcome: StreamOutcome) => void = () => undefined;
  const ended = new Promise<StreamOutcome>((resolve) => {
    settle = resolve;
  });
  defer(ended.then((outcome) => meter.record(usageStatus(outcome), 200, estimateUsage(chatRequest, completionText))));

  const stream = new SseStream(clientEvents(), { abort: () => upstreamCall.abort(), onFinish: settle, errorFormat: 'gemini' });
  return sseResponse(stream);
};
