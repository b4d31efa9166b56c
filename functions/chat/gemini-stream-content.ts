import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { meteredStream } from '../shared/middleware/metered-stream.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletionChunk } from '../shared/protocols/openai-chat/chat-completion-result.js';
import { createChatToGeminiStream } from '../shared/protocols/gemini/chat-to-gemini-stream.js';
import type { OutgoingEvent } from '../shared/streaming/sse-response.js';
import type { Channel } from '../shared/store/channels.js';
import { chatStreamTally, openChatOn } from './chat-stream-tally.js';

/**
 * :streamGenerateContent?alt=sse served through chat: each chat chunk's text goes out as a
 * GenerateContentResponse event as it arrives (no terminator, as Google streams); a failure mid-stream
 * becomes one `{error}` event in Google's envelope.
 */
export const streamGeminiContent = (
  chatRequest: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  client: AbortSignal,
): Promise<GatewayResponse> => {
  const tally = chatStreamTally(meter);
  const translator = createChatToGeminiStream(model.id);
  async function* clientEvents(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of tally.read(chunks)) {
      for (const event of translator.push(chunk)) yield { data: event };
    }
    for (const event of translator.end()) yield { data: event };
  }
  return meteredStream({
    channels,
    meter,
    client,
    open: openChatOn(chatRequest, model),
    toClient: clientEvents,
    estimate: () => estimateChatUsage(chatRequest.messages, tally.text()),
    framing: { errorFormat: 'gemini' },
  });
};
