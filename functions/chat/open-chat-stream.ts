import type { RequestMeter } from '../shared/middleware/request-meter.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { adapterOf } from '../shared/providers/provider-registry.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { toTokenUsage, type ChatCompletionChunk } from '../shared/protocols/openai-chat/chat-completion-result.js';
import type { Channel } from '../shared/store/channels.js';

export interface OpenChatStream {
  /** The upstream's chunks; reported usage is already given to the meter. */
  readonly chunks: AsyncIterable<ChatCompletionChunk>;
  /** The answer text (and tool arguments) seen so far, for an estimate when no usage arrives. */
  completionText(): string;
  /** Closes the upstream call (the client went away). */
  abort(): void;
}

/**
 * Opens a chat stream on the first channel that accepts it (failover before the first byte) and
 * meters it: every endpoint that streams through chat (completions, Gemini-style) starts here.
 */
export const openChatStream = async (
  request: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  meter: RequestMeter,
  /** The request's signal: the client leaving closes the upstream call at once. */
  client: AbortSignal,
): Promise<OpenChatStream> => {
  const upstreamCall = upstreamCallFor(client);
  const { result } = await withFailover(
    channels,
    (candidate) =>
      adapterOf(candidate.type, 'chat').stream(channelCall(request, candidate, model, upstreamCall.signal)),
    { signal: upstreamCall.signal, meter },
  );
  let text = '';
  async function* metered(): AsyncGenerator<ChatCompletionChunk> {
    for await (const chunk of result) {
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
