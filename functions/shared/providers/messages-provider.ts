import type { UpstreamTimeouts } from '../relay/upstream-http.js';
import type { AnthropicCountTokensRequest, AnthropicMessagesRequest } from '../schemas/anthropic-messages-request.js';
import type { AnthropicMessage, AnthropicStreamEvent } from '../schemas/anthropic-messages-result.js';
import type { Channel } from '../store/channels.js';

export interface MessagesCall<Request = AnthropicMessagesRequest> {
  readonly request: Request;
  readonly upstreamModel: string;
  readonly channel: Channel;
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
}

/**
 * An upstream type that serves the Messages format natively (no translation through chat). Like
 * ChatProvider, failures before the first byte reject with an UpstreamError so the router may try
 * another channel.
 */
export interface MessagesProvider {
  create(call: MessagesCall): Promise<AnthropicMessage>;
  stream(call: MessagesCall): Promise<AsyncIterable<AnthropicStreamEvent>>;
  countTokens(call: MessagesCall<AnthropicCountTokensRequest>): Promise<number>;
}
