import {
  readUpstreamText,
  sendUpstream,
  type UpstreamResponse,
  type UpstreamTimeouts,
} from '../../upstream/upstream-http.js';
import { upstreamBrokenResponse, UpstreamError } from '../../upstream/upstream-errors.js';
import type { Channel } from '../../store/channels.js';
import { openAiHeaders, openAiStatusError } from './openai-provider.js';
import { parseJson } from '../../http/parse-json.js';

/** The shared base of the OpenAI-compatible adapters beyond chat: one POST under the channel's API root. */

export interface OpenAiCall {
  readonly channel: Channel;
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
}

export const openAiEndpointUrl = (channel: Channel, path: string): string => {
  if (!channel.baseUrl)
    throw new UpstreamError(`Channel '${channel.id}' has no baseUrl.`, {
      status: 503,
      code: 'no_channel',
      retryable: true,
    });
  return `${channel.baseUrl.replace(/\/+$/, '')}${path}`;
};

/** Sends a JSON body; resolves with a 2xx response (body unread) or rejects with the upstream's error. */
export const postOpenAi = async (call: OpenAiCall, path: string, body: unknown): Promise<UpstreamResponse> => {
  const response = await sendUpstream({
    url: openAiEndpointUrl(call.channel, path),
    headers: openAiHeaders(call.channel),
    body: JSON.stringify(body),
    signal: call.signal,
    timeouts: call.timeouts,
  });
  if (response.status < 200 || response.status >= 300) throw await openAiStatusError(response, call.timeouts.idleMs);
  return response;
};

/** A JSON POST whose whole answer is one JSON object, checked by `accept`. */
export const postOpenAiJson = async <T>(
  call: OpenAiCall,
  path: string,
  body: unknown,
  accept: (payload: unknown) => payload is T,
  what: string,
): Promise<T> => {
  const response = await postOpenAi(call, path, body);
  const text = await readUpstreamText(response.body, call.timeouts.idleMs);
  let payload: unknown;
  try {
    payload = parseJson(text);
  } catch {
    throw upstreamBrokenResponse('the body was not JSON');
  }
  if (!accept(payload)) throw upstreamBrokenResponse(`the body was not ${what}`);
  return payload;
};
