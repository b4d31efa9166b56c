import type { RequestMeter } from '../shared/accounting/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { chatProviders } from '../shared/providers/chat-providers.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import {
  toTokenUsage,
  type ChatCompletionChunk,
  type TokenUsage,
} from '../shared/protocols/openai-chat/chat-completion-result.js';
import { openChatPassThrough, type ChatPassThroughOptions } from '../shared/streaming/open-pass-through.js';
import type { PassThroughStream } from '../shared/streaming/pass-through-stream.js';
import type { Channel } from '../shared/store/channels.js';

export interface OpenChatStream {
  /** The upstream's chunks; reported usage is already given to the meter. */
  readonly chunks: AsyncIterable<ChatCompletionChunk>;
  /** The answer text (and tool arguments) seen so far, for an estimate when no usage arrives. */
  completionText(): string;
  /** Closes the upstream call (the client went away). */
  abort(): void;
  /** Set instead of `chunks` when the channel speaks the client's protocol and its bytes are relayed. */
  readonly passThrough?: PassThroughStream;
}

export interface OpenChatStreamOptions {
  /** The client speaks OpenAI chat: a channel that does too may relay its stream without translation. */
  readonly passThrough?: Omit<ChatPassThroughOptions, 'onUsage'>;
}

/**
 * Opens a chat stream on the first channel that accepts it (failover before the first byte) and
 * meters it: every endpoint that streams through chat (completions, Gemini-style) starts here.
 */
async function* noChunks(): AsyncGenerator<ChatCompletionChunk> {}

export const openChatStream = async (
  request: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  /** The request's signal: the client leaving closes the upstream call at once. */
  client: AbortSignal,
  options: OpenChatStreamOptions = {},
): Promise<OpenChatStream> => {
  const upstreamCall = upstreamCallFor(client);
  const passThroughOptions = options.passThrough && {
    ...options.passThrough,
    onUsage: (usage: TokenUsage) => meter.usage(usage),
  };
  const { result } = await withFailover(
    channels,
    (candidate): Promise<PassThroughStream | AsyncIterable<ChatCompletionChunk>> => {
      const call = channelCall(request, candidate, model, upstreamCall.signal);
      return (
        (passThroughOptions && openChatPassThrough(call, passThroughOptions)) ??
        chatProviders[candidate.type]!.stream(call)
      );
    },
    { signal: upstreamCall.signal, meter },
  );
  if ('events' in result) {
    return {
      chunks: noChunks(),
      completionText: result.completionText,
      abort: () => upstreamCall.abort(),
      passThrough: result,
    };
  }
  const chunks = result;
  let text = '';
  async function* metered(): AsyncGenerator<ChatCompletionChunk> {
    for await (const chunk of chunks) {
      if (chunk.usage) meter.usage(toTokenUsage(chunk.usage));
      for (const choice of chunk.choices) {
        if (typeof choice.delta?.content === 'string') text += choice.delta.content;
        for (const call of choice.delta?.tool_calls ?? []) text += call.function?.arguments ?? '';
      }
      yield chunk;
    }
  }
  return { chunks: metered(), completionText: () => text, abort: () => upstreamCall.abort() };
};
