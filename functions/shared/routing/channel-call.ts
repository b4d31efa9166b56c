import type { CatalogModel } from '../catalog/model-catalog.js';
import type { Channel } from '../store/channels.js';
import { upstreamModelName } from './order-channels.js';
import { channelTimeouts, type UpstreamTimeouts } from '../upstream/upstream-http.js';

/**
 * What the client opted into beyond its body, read from its headers: protocol versions and beta
 * features. Each provider forwards only what its upstream accepts; everything else is dropped there.
 */
export interface ClientOptions {
  /** Beta feature names (the Messages protocol's `anthropic-beta`), deduplicated, in the client's order. */
  readonly betas: readonly string[];
  /** The protocol version the client pinned (the Messages protocol's `anthropic-version`), when well-formed. */
  readonly version?: string;
}

export const noClientOptions: ClientOptions = { betas: [] };

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

export const channelCall = <Request>(
  request: Request,
  channel: Channel,
  model: CatalogModel,
  signal: AbortSignal,
  clientOptions: ClientOptions = noClientOptions,
): ChannelCall<Request> => ({
  request,
  upstreamModel: upstreamModelName(channel, model),
  channel,
  signal,
  timeouts: channelTimeouts(channel),
  clientOptions,
  reasoning: model.reasoning,
});
