import type { ChannelCall } from './channel-call.js';
import type { ChatCompletionRequest } from '../protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../protocols/openai-chat/chat-completion-result.js';

/** One call to one channel: the client's request with the upstream's model name put in. */
export type ChatCall = ChannelCall<ChatCompletionRequest>;

/**
 * What an upstream type must do to serve chat completions. Both methods reject with an UpstreamError
 * before anything reaches the client (so the router may try another channel); a stream's iterator
 * throws for a failure after that.
 */
export interface ChatProvider {
  complete(call: ChatCall): Promise<ChatCompletion>;
  /** Resolves once the upstream accepted the request and its stream has begun. */
  stream(call: ChatCall): Promise<AsyncIterable<ChatCompletionChunk>>;
}
