import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import { sendUpstream, type UpstreamResponse } from '../../upstream/upstream-http.js';
import type { ChannelCall } from '../channel-call.js';
import type { GeminiGenerateContentRequest } from '../../protocols/gemini/gemini-generate-content-request.js';
import { isSuccess, readJsonBody, readJsonEvents, requireEventStream } from '../upstream-json.js';
import { geminiErrorSchema, geminiResponseSchema, type GeminiUsage } from './gemini-api.js';
import { GEMINI_BASE_URL, geminiHeaders, geminiStatusError } from './gemini-http.js';
import { geminiStreamError } from './gemini-stream.js';

/**
 * Gemini-format requests on a gemini channel, relayed as they are: the client's body goes upstream
 * untouched (thoughtSignature, topK, safety settings, cached content, every field the gateway does not
 * know yet), only the model in the path is the channel's. Answers come back as Google sent them.
 */

export type GeminiNativeCall = ChannelCall<GeminiGenerateContentRequest>;

/** A GenerateContentResponse as Google sent it, with what the gateway reads from it. */
export interface GeminiNativeAnswer {
  readonly body: Record<string, unknown>;
  readonly usage: GeminiUsage | undefined;
}

type Method = 'generateContent' | 'streamGenerateContent' | 'countTokens';

const methodUrl = (call: GeminiNativeCall, method: Method) =>
  `${(call.channel.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(call.upstreamModel)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;

const post = async (call: GeminiNativeCall, method: Method): Promise<UpstreamResponse> => {
  const response = await sendUpstream({
    url: methodUrl(call, method),
    headers: geminiHeaders(call.channel),
    body: JSON.stringify(call.request),
    signal: call.signal,
    timeouts: call.timeouts,
  });
  if (!isSuccess(response)) throw await geminiStatusError(response, call.timeouts.idleMs);
  return response;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one answer; a body that is no GenerateContentResponse is a broken answer (another channel may serve). */
const answerOf = (payload: unknown, model: string): GeminiNativeAnswer => {
  const parsed = geminiResponseSchema().safeParse(payload);
  if (!parsed.success || !isObject(payload)) throw upstreamBrokenResponse('the body was not a GenerateContentResponse');
  // The public model id, as every other answer of the gateway names it.
  return { body: { ...payload, modelVersion: model }, usage: parsed.data.usageMetadata ?? undefined };
};

async function* answers(response: UpstreamResponse, call: GeminiNativeCall, model: string) {
  let finished = false;
  for await (const { data } of readJsonEvents(response, call.timeouts.idleMs)) {
    const error = geminiErrorSchema().safeParse(data);
    if (error.success && error.data.error) throw geminiStreamError(error.data.error);
    const answer = answerOf(data, model);
    const candidates = (answer.body.candidates ?? []) as { finishReason?: unknown }[];
    if (candidates.some((candidate) => candidate?.finishReason) || isObject(answer.body.promptFeedback))
      finished = true;
    yield answer;
  }
  // Google's stream has no terminator: a finishReason is the only proof that it is whole.
  if (!finished) throw upstreamBrokenResponse('the stream ended without a finishReason');
}

export const geminiNative = {
  /** :generateContent, whole. `model` is the public id written into the answer. */
  async generate(call: GeminiNativeCall, model: string): Promise<GeminiNativeAnswer> {
    const response = await post(call, 'generateContent');
    return answerOf(await readJsonBody(response, call.timeouts.idleMs), model);
  },

  /** :streamGenerateContent; resolves once Google has accepted the request. */
  async stream(call: GeminiNativeCall, model: string): Promise<AsyncIterable<GeminiNativeAnswer>> {
    const response = await post(call, 'streamGenerateContent');
    requireEventStream(response);
    return answers(response, call, model);
  },

  /** :countTokens, Google's own count. */
  async countTokens(call: GeminiNativeCall): Promise<Record<string, unknown>> {
    const response = await post(call, 'countTokens');
    const payload = await readJsonBody(response, call.timeouts.idleMs);
    // A count is a whole number of tokens: anything else is a broken answer, not a count to pass on.
    if (!isObject(payload) || !Number.isSafeInteger(payload.totalTokens) || (payload.totalTokens as number) < 0)
      throw upstreamBrokenResponse('the body was not a token count');
    return payload;
  },
};
