import type { CatalogModel } from '../catalog/model-catalog.js';
import type { ChannelCall } from '../providers/channel-call.js';
import { noClientOptions, type ClientOptions } from '../protocols/client-options.js';
import type { Channel } from '../store/channels.js';
import { upstreamModelName } from './order-channels.js';
import { channelTimeouts } from '../upstream/upstream-http.js';

/** The call a provider gets for a channel chosen by the router: the upstream's model name and timeouts put in. */
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
