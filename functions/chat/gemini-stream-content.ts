import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { meteredStream } from '../shared/middleware/metered-stream.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { OutgoingEvent } from '../shared/streaming/sse-response.js';
import type { Channel } from '../shared/store/channels.js';
import { streamOn, type GeminiRequestForms, type GeminiStreamStep } from './gemini-relay.js';

/**
 * :streamGenerateContent?alt=sse: each event goes out as it arrives (no terminator, as Google streams),
 * Google's own events from a gemini channel, translated ones from any other; a failure mid-stream
 * becomes one `{error}` event in Google's envelope.
 */
export const streamGeminiContent = (
  request: GeminiRequestForms,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  let completionText = '';
  async function* clientEvents(steps: AsyncIterable<GeminiStreamStep>): AsyncGenerator<OutgoingEvent> {
    for await (const step of steps) {
      if (step.usage) meter.usage(step.usage);
      completionText += step.text;
      for (const event of step.events) yield { data: event };
    }
  }
  return meteredStream({
    channels,
    meter,
    client,
    open: (channel, signal) => streamOn(channel, request, model, signal),
    toClient: clientEvents,
    estimate: () => estimateChatUsage(request.chat.messages, completionText),
    framing: { errorFormat: 'gemini' },
  });
};
