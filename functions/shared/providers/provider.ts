import type { UpstreamTimeouts } from '../relay/upstream-http.js';
import type { ChatCompletionRequest } from '../schemas/chat-completion-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../schemas/chat-completion-result.js';
import type { Channel } from '../store/channels.js';

/** One call to one channel: the client's request with the upstream's model name put in. */
export interface ChatCall {
  readonly request: ChatCompletionRequest;
  readonly upstreamModel: string;
  readonly channel: Channel;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
}

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
