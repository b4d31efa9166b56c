import { randomUUID } from 'node:crypto';
import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import { sendUpstream, type UpstreamResponse } from '../../upstream/upstream-http.js';
import type { ChatCompletionChunk } from '../../protocols/openai-chat/chat-completion-result.js';
import type { Channel } from '../../store/channels.js';
import type { ChatCall, ChatProvider } from '../provider.js';
import { isSuccess, readJsonBody, readJsonEvents, requireEventStream } from '../upstream-json.js';
import { toGeminiRequest } from './convert-to-gemini-contents.js';
import { geminiErrorSchema, geminiResponseSchema } from './gemini-api.js';
import { GEMINI_BASE_URL, geminiHeaders, geminiStatusError } from './gemini-http.js';
import { fromGeminiResponse } from './gemini-response.js';
import { createGeminiStreamTranslator, geminiStreamError } from './gemini-stream.js';

const methodUrl = (channel: Channel, model: string, method: 'generateContent' | 'streamGenerateContent') =>
  `${(channel.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(model)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;

const post = (call: ChatCall, method: 'generateContent' | 'streamGenerateContent') =>
  sendUpstream({
    url: methodUrl(call.channel, call.upstreamModel, method),
    headers: geminiHeaders(call.channel),
    body: JSON.stringify(toGeminiRequest(call.request)),
    signal: call.signal,
    timeouts: call.timeouts,
  });

const shortId = () => randomUUID().replaceAll('-', '').slice(0, 24);

async function* geminiChunks(
  response: UpstreamResponse,
  idleMs: number,
  model: string,
): AsyncGenerator<ChatCompletionChunk> {
  const translate = createGeminiStreamTranslator(shortId());
  let finished = false;
  for await (const { data } of readJsonEvents(response, idleMs)) {
    const error = geminiErrorSchema().safeParse(data);
    if (error.success && error.data.error) throw geminiStreamError(error.data.error);
    const parsed = geminiResponseSchema().safeParse(data);
    if (!parsed.success) throw upstreamBrokenResponse('a stream event was not a GenerateContentResponse');
    if (parsed.data.candidates?.some((candidate) => candidate.finishReason) || parsed.data.promptFeedback?.blockReason)
      finished = true;
    for (const chunk of translate.push(parsed.data)) yield { ...chunk, model: chunk.model || model };
  }
  // Gemini's stream has no terminator: the finishReason of the last event is the only proof it is whole.
  if (!finished) throw upstreamBrokenResponse('the stream ended without a finishReason');
  for (const chunk of translate.end()) yield { ...chunk, model: chunk.model || model };
}

export const geminiChatProvider: ChatProvider = {
  async complete(call) {
    const response = await post(call, 'generateContent');
    if (!isSuccess(response)) throw await geminiStatusError(response, call.timeouts.idleMs);
    const parsed = geminiResponseSchema().safeParse(await readJsonBody(response, call.timeouts.idleMs));
    if (!parsed.success) throw upstreamBrokenResponse('the body was not a GenerateContentResponse');
    const completion = fromGeminiResponse(parsed.data, shortId());
    completion.model ||= call.upstreamModel;
    return completion;
  },

  async stream(call) {
    const response = await post(call, 'streamGenerateContent');
    if (!isSuccess(response)) throw await geminiStatusError(response, call.timeouts.idleMs);
    requireEventStream(response);
    return geminiChunks(response, call.timeouts.idleMs, call.upstreamModel);
  },
};
