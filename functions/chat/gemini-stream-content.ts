import { estimateChatUsage } from '../shared/accounting/estimate-tokens.js';
import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { GatewayResponse } from '../shared/http/response.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import type { Channel } from '../shared/store/channels.js';
import { SseStream, sseResponse, type OutgoingEvent } from '../shared/streaming/sse-response.js';
import { createChatToGeminiStream } from '../shared/protocols/gemini/chat-to-gemini-stream.js';
import { openChatStream } from './open-chat-stream.js';

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
  client: AbortSignal,
): Promise<GatewayResponse> => {
  const upstream = await openChatStream(chatRequest, model, channels, meter, client);
  const translator = createChatToGeminiStream(model.id);
  async function* clientEvents(): AsyncGenerator<OutgoingEvent> {
    for await (const chunk of upstream.chunks) {
      for (const event of translator.push(chunk)) yield { data: event };
    }
    for (const event of translator.end()) yield { data: event };
  }
  const stream = new SseStream(clientEvents(), {
    abort: upstream.abort,
    onFinish: meter.recordWhenStreamEnds(() => estimateChatUsage(chatRequest.messages, upstream.completionText())),
    errorFormat: 'gemini',
  });
  return sseResponse(stream);
};
