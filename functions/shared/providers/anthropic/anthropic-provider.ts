import { upstreamBrokenResponse, upstreamStatusError, type UpstreamError } from '../../upstream/upstream-errors.js';
import { sendUpstream, type UpstreamResponse, type UpstreamTimeouts } from '../../upstream/upstream-http.js';
import type {
  AnthropicMessage,
  AnthropicStreamEvent,
} from '../../protocols/anthropic-messages/anthropic-messages-result.js';
import type { ChatCompletionChunk } from '../../protocols/openai-chat/chat-completion-result.js';
import type { Channel } from '../../store/channels.js';
import { noClientOptions, type ClientOptions } from '../../protocols/client-options.js';
import { anthropicChannelBetas } from './anthropic-betas.js';
import type { MessagesCall, MessagesProvider } from '../messages-provider.js';
import type { ChatProvider } from '../provider.js';
import {
  isSuccess,
  readErrorBody,
  readJsonBody,
  readJsonEvents,
  requireEventStream,
  retryAfterHeader,
} from '../upstream-json.js';
import {
  anthropicCountTokensSchema,
  anthropicErrorSchema,
  anthropicMessageSchema,
  anthropicStreamEventSchema,
} from './anthropic-api.js';
import { fromAnthropicResponse } from './anthropic-response.js';
import { anthropicStreamError, createAnthropicStreamTranslator } from './anthropic-stream.js';
import { toAnthropicRequest } from './convert-to-anthropic-messages.js';
import { withVerifiableThinking } from './verifiable-thinking.js';
import { predatesThinking } from '../model-reasoning.js';

/** Anthropic's Messages API: `x-api-key`, a pinned API version, `/v1/messages` under the API root. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

const endpointUrl = (channel: Channel, path: string) =>
  `${(channel.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '')}${path}`;

/** The channel's key, the client's pinned version (ours otherwise) and the betas this channel type forwards. */
export const anthropicHeaders = (
  channel: Channel,
  clientOptions: ClientOptions = noClientOptions,
): Record<string, string> => {
  const betas = anthropicChannelBetas(clientOptions.betas);
  return {
    'content-type': 'application/json',
    'anthropic-version': clientOptions.version ?? ANTHROPIC_VERSION,
    ...(betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : {}),
    ...(channel.apiKey ? { 'x-api-key': channel.apiKey } : {}),
  };
};

interface Call {
  readonly channel: Channel;
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
  readonly clientOptions?: ClientOptions;
}

const post = (call: Call, path: string, body: unknown) =>
  sendUpstream({
    url: endpointUrl(call.channel, path),
    headers: anthropicHeaders(call.channel, call.clientOptions),
    body: JSON.stringify(body),
    signal: call.signal,
    timeouts: call.timeouts,
  });

/** An Anthropic error body, as the error the client gets. */
export const anthropicStatusError = async (response: UpstreamResponse, idleMs: number): Promise<UpstreamError> => {
  const parsed = anthropicErrorSchema().safeParse(await readErrorBody(response, idleMs));
  const error = parsed.success ? parsed.data.error : undefined;
  return upstreamStatusError(response.status, error?.message ?? undefined, {
    retryAfter: retryAfterHeader(response),
    type: 'invalid_request_error',
  });
};

const readMessage = async (response: UpstreamResponse, idleMs: number) => {
  const parsed = anthropicMessageSchema().safeParse(await readJsonBody(response, idleMs));
  if (!parsed.success) throw upstreamBrokenResponse('the body was not a message');
  return parsed.data;
};

/** The upstream's typed events; `error` events throw, and a stream without message_stop is broken. */
async function* anthropicEvents(response: UpstreamResponse, idleMs: number): AsyncGenerator<AnthropicStreamEvent> {
  let stopped = false;
  for await (const { data } of readJsonEvents(response, idleMs)) {
    const parsed = anthropicStreamEventSchema().safeParse(data);
    // An event type newer than this adapter is skipped, as Anthropic's versioning policy asks.
    if (!parsed.success) continue;
    if (parsed.data.type === 'error') throw anthropicStreamError(parsed.data.error);
    if (parsed.data.type === 'message_stop') stopped = true;
    yield parsed.data as AnthropicStreamEvent;
  }
  if (!stopped) throw upstreamBrokenResponse('the stream ended before message_stop');
}

const openStream = async (call: Call, body: unknown): Promise<UpstreamResponse> => {
  const response = await post(call, '/v1/messages', body);
  if (!isSuccess(response)) throw await anthropicStatusError(response, call.timeouts.idleMs);
  requireEventStream(response);
  return response;
};

export const anthropicChatProvider: ChatProvider = {
  async complete(call) {
    const response = await post(
      call,
      '/v1/messages',
      toAnthropicRequest(call.request, call.upstreamModel, false, { reasoning: call.reasoning }),
    );
    if (!isSuccess(response)) throw await anthropicStatusError(response, call.timeouts.idleMs);
    return fromAnthropicResponse(await readMessage(response, call.timeouts.idleMs));
  },

  async stream(call) {
    const response = await openStream(
      call,
      toAnthropicRequest(call.request, call.upstreamModel, true, { reasoning: call.reasoning }),
    );
    const translate = createAnthropicStreamTranslator();
    return (async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
      for await (const event of anthropicEvents(response, call.timeouts.idleMs)) yield* translate(event as never);
    })();
  },
};

/**
 * The client's body as the channel's upstream model takes it: thinking asked of a model known not to
 * think (a public id named like a thinking model, mapped to Claude 3.5 Haiku, say) is left out, as
 * Anthropic refuses it for such a model; thinking Anthropic cannot verify is left out too. A model
 * whose name says nothing keeps what the client asked for: the client chose this path's fields.
 */
const fittedBody = <Body extends Parameters<typeof withVerifiableThinking>[0]>(
  call: { readonly reasoning?: boolean; readonly upstreamModel: string },
  body: Body,
): Body => {
  const unthinking = call.reasoning === false && predatesThinking(call.upstreamModel);
  if (!unthinking || body.thinking === undefined) return withVerifiableThinking(body);
  const { thinking: _off, ...rest } = body;
  return withVerifiableThinking(rest as Body);
};

/** Starts a native Messages stream; resolves once the upstream accepted it with an event stream. */
export const openAnthropicMessagesStream = (call: MessagesCall): Promise<UpstreamResponse> =>
  openStream(call, { ...fittedBody(call, call.request), model: call.upstreamModel, stream: true });

/** The Messages API served natively: the client's body with the upstream's model name put in. */
export const anthropicMessagesProvider: MessagesProvider = {
  async create(call) {
    const { stream: _stream, ...body } = call.request;
    const response = await post(call, '/v1/messages', { ...fittedBody(call, body), model: call.upstreamModel });
    if (!isSuccess(response)) throw await anthropicStatusError(response, call.timeouts.idleMs);
    return (await readMessage(response, call.timeouts.idleMs)) as unknown as AnthropicMessage;
  },

  async stream(call) {
    return anthropicEvents(await openAnthropicMessagesStream(call), call.timeouts.idleMs);
  },

  async countTokens(call) {
    // The fields count_tokens takes (it refuses max_tokens, stream and the sampling parameters).
    const { messages, system, tools, tool_choice, thinking, context_management, output_config, mcp_servers } =
      fittedBody(call, call.request);
    const body = {
      model: call.upstreamModel,
      messages,
      system,
      tools,
      tool_choice,
      thinking,
      context_management,
      output_config,
      mcp_servers,
    };
    const response = await post(call, '/v1/messages/count_tokens', body);
    if (!isSuccess(response)) throw await anthropicStatusError(response, call.timeouts.idleMs);
    const parsed = anthropicCountTokensSchema().safeParse(await readJsonBody(response, call.timeouts.idleMs));
    if (!parsed.success) throw upstreamBrokenResponse('the body was not a token count');
    return parsed.data.input_tokens;
  },
};
