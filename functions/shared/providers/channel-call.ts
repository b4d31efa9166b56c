import type { Channel } from '../store/channels.js';
import type { UpstreamTimeouts } from '../upstream/upstream-http.js';
import type { ClientOptions } from '../protocols/client-options.js';

/** One call to one channel, as every provider takes it: the request under the upstream's model name. */
export interface ChannelCall<Request> {
  readonly request: Request;
  readonly upstreamModel: string;
  readonly channel: Channel;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
  readonly clientOptions?: ClientOptions;
  /** Whether the model reasons (thinks) before it answers, from the catalog. */
  readonly reasoning?: boolean;
}
