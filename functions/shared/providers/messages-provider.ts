import type { ChannelCall } from './channel-call.js';
import type {
  AnthropicCountTokensRequest,
  AnthropicMessagesRequest,
} from '../protocols/anthropic-messages/anthropic-messages-request.js';
import type {
  AnthropicMessage,
  AnthropicStreamEvent,
} from '../protocols/anthropic-messages/anthropic-messages-result.js';

export type MessagesCall<Request = AnthropicMessagesRequest> = ChannelCall<Request>;

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
