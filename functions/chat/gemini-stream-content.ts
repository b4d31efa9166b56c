import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { RequestMeter } from '../shared/accounting/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { Channel } from '../shared/store/channels.js';
import { SseStream, sseResponse, type OutgoingEvent } from '../shared/streaming/sse-response.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { streamOn, type GeminiRequestForms } from './gemini-relay.js';

/**
 * :streamGenerateContent?alt=sse: each event goes out as it arrives (no terminator, as Google streams),
 * Google's own events from a gemini channel, translated ones from any other; a failure mid-stream
 * becomes one `{error}` event in Google's envelope.
 */
export const streamGeminiContent = async (
  request: GeminiRequestForms,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  const upstreamCall = upstreamCallFor(client);
  const { result: steps } = await withFailover(
    channels,
    (candidate) => streamOn(candidate, request, model, upstreamCall.signal),
    { signal: upstreamCall.signal, meter },
  );
  let completionText = '';
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const step of steps) {
      if (step.usage) meter.usage(step.usage);
      completionText += step.text;
      for (const event of step.events) yield { data: event };
    }
  }
  const stream = new SseStream(clientEvents(), {
    abort: () => upstreamCall.abort(),
    onFinish: meter.recordWhenStreamEnds(() => estimateChatUsage(request.chat.messages, completionText)),
    errorFormat: 'gemini',
  });
  return sseResponse(stream);
};
