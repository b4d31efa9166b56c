import { randomUUID } from 'node:crypto';
import {
  markBodyComplete,
  readUpstreamText,
  sendUpstream,
  type UpstreamResponse,
} from '../../upstream/upstream-http.js';
import { upstreamBrokenResponse, upstreamStatusError, UpstreamError } from '../../upstream/upstream-errors.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../protocols/openai-chat/chat-completion-result.js';
import { readSse } from '../../upstream/read-sse.js';
import type { Channel } from '../../store/channels.js';
import type { ChatCall, ChatProvider } from '../provider.js';
import { openAiChunkSchema, openAiCompletionSchema, openAiErrorSchema } from './openai-api.js';
import type { ChatCompletionRequest } from '../../protocols/openai-chat/chat-completion-request.js';
import { toOpenAIWireRequest } from '../../protocols/openai-chat/openai-wire-request.js';
import { parseJson } from '../../http/parse-json.js';

/** Any OpenAI-compatible server: OpenAI, Azure's v1 API, DeepSeek, Groq, vLLM, Ollama, … */

const endpointUrl = (channel: Channel, path: string): string => {
  if (!channel.baseUrl)
    throw new UpstreamError(`Channel '${channel.id}' has no baseUrl.`, {
      status: 503,
      code: 'no_channel',
      retryable: true,
    });
  return `${channel.baseUrl.replace(/\/+$/, '')}${path}`;
};

export const openAiHeaders = (channel: Channel): Record<string, string> => ({
  'content-type': 'application/json',
  ...(channel.apiKey ? { authorization: `Bearer ${channel.apiKey}` } : {}),
});

/** An upstream error body, as the error the client gets. */
export const openAiStatusError = async (response: UpstreamResponse, idleMs: number): Promise<UpstreamError> => {
  const text = await readUpstreamText(response.body, idleMs).catch(() => '');
  let parsed: ReturnType<ReturnType<typeof openAiErrorSchema>['safeParse']> | undefined;
  try {
    parsed = openAiErrorSchema().safeParse(parseJson(text));
  } catch {
    parsed = undefined;
  }
  const error = parsed?.success ? parsed.data.error : undefined;
  const retryAfter = response.headers['retry-after'];
  return upstreamStatusError(response.status, error?.message ?? undefined, {
    retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    param: error?.param ?? null,
    code: error?.code === undefined || error?.code === null ? null : String(error.code),
    type: error?.type ?? null,
  });
};

const post = (call: ChatCall, body: ChatCompletionRequest) =>
  sendUpstream({
    url: endpointUrl(call.channel, '/chat/completions'),
    headers: openAiHeaders(call.channel),
    body: JSON.stringify(toOpenAIWireRequest(body)),
    signal: call.signal,
    timeouts: call.timeouts,
  });

/** The error an upstream's `{"error": …}` stream event stands for, if the event is one. */
export const openAiStreamError = (payload: unknown): UpstreamError | undefined => {
  // Nearly every event has no error member: what the schema would say of it, without running it.
  if (typeof payload !== 'object' || payload === null || (payload as { error?: unknown }).error == null)
    return undefined;
  const error = openAiErrorSchema().safeParse(payload);
  if (!error.success || !error.data.error) return undefined;
  return new UpstreamError(`The upstream provider failed mid-stream: ${error.data.error.message ?? 'unknown error'}`, {
    status: 502,
    code: 'upstream_error',
    retryable: false,
  });
};

async function* openAiChunks(response: UpstreamResponse, idleMs: number): AsyncGenerator<ChatCompletionChunk> {
  let done = false;
  const fallbackId = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
  for await (const event of readSse(response.body, idleMs)) {
    if (event.data === '[DONE]') {
      done = true;
      markBodyComplete(response.body);
      break;
    }
    let payload: unknown;
    try {
      payload = parseJson(event.data);
    } catch {
      throw upstreamBrokenResponse('a stream event was not JSON');
    }
    const error = openAiStreamError(payload);
    if (error) throw error;
    if (!openAiChunkSchema().safeParse(payload).success)
      throw upstreamBrokenResponse('a stream event was not a chat completion chunk');
    const chunk = payload as ChatCompletionChunk;
    // What some servers leave out of a chunk (an id, the choices of a usage chunk), translations need.
    chunk.id ??= fallbackId;
    chunk.choices ??= [];
    yield chunk;
  }
  if (!done) throw upstreamBrokenResponse('the stream ended before [DONE]');
}

/**
 * Starts a streamed chat completion and resolves once the upstream accepted it with an event stream;
 * rejects (before anything reached the client) otherwise.
 */
export const openOpenAiStream = async (call: ChatCall): Promise<UpstreamResponse> => {
  // Usage is always asked for: the gateway needs it for accounting even when the client does not.
  const response = await post(call, {
    ...call.request,
    model: call.upstreamModel,
    stream: true,
    stream_options: { ...call.request.stream_options, include_usage: true },
  });
  if (response.status < 200 || response.status >= 300) throw await openAiStatusError(response, call.timeouts.idleMs);
  const contentType = String(response.headers['content-type'] ?? '');
  if (!contentType.includes('text/event-stream')) {
    response.body.resume();
    throw upstreamBrokenResponse(`expected an event stream, got '${contentType || 'no content type'}'`);
  }
  return response;
};

export const openAiProvider: ChatProvider = {
  async complete(call) {
    const response = await post(call, { ...call.request, model: call.upstreamModel, stream: false });
    if (response.status < 200 || response.status >= 300) throw await openAiStatusError(response, call.timeouts.idleMs);
    const text = await readUpstreamText(response.body, call.timeouts.idleMs);
    let payload: unknown;
    try {
      payload = parseJson(text);
    } catch {
      throw upstreamBrokenResponse('the body was not JSON');
    }
    if (!openAiCompletionSchema().safeParse(payload).success)
      throw upstreamBrokenResponse('the body was not a chat completion');
    return payload as ChatCompletion;
  },

  async stream(call) {
    return openAiChunks(await openOpenAiStream(call), call.timeouts.idleMs);
  },
};
