import type { CatalogModel } from '../catalog/model-catalog.js';
import type { ChannelCall } from '../providers/channel-call.js';
import { noClientOptions, type ClientOptions } from '../protocols/client-options.js';
import type { Channel } from '../store/channels.js';
import { reasonsByDefault } from '../providers/model-reasoning.js';
import { upstreamModelName } from './order-channels.js';
import { channelTimeouts } from '../upstream/upstream-http.js';

/**
 * Whether the model a channel calls reasons before it answers: the admin's word on the model, else
 * the family of the upstream model the channel calls (its `modelMap` entry), never the public id.
 * A public id named like a reasoning model may stand for a model that refuses reasoning fields, and
 * one public model may be served by a reasoning model on one channel and a plain one on another.
 */
export const reasonsOn = (channel: Channel, model: CatalogModel): boolean =>
  model.settings?.reasoning ?? reasonsByDefault(upstreamModelName(channel, model));

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
  reasoning: reasonsOn(channel, model),
});
