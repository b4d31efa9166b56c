import type { Channel } from '../store/channels.js';

/** The id of the `demo` channel the local runtime creates on a store with no channel at all. */
export const BUILT_IN_DEMO_CHANNEL_ID = 'demo';

const isBuiltInDemo = (channel: Channel) => channel.id === BUILT_IN_DEMO_CHANNEL_ID && channel.type === 'demo';

/**
 * The channels that serve models. The built-in demo channel (id `demo`, type `demo`) is there so a
 * first request works offline; once any other channel exists it serves nothing, so `demo-1` never
 * sits beside real models by accident. It stays stored (and listed by the admin API) until deleted;
 * a `demo`-type channel under another id is served like any other channel.
 */
export const servingChannels = (channels: readonly Channel[]): readonly Channel[] =>
  channels.some((channel) => !isBuiltInDemo(channel))
    ? channels.filter((channel) => !isBuiltInDemo(channel))
    : channels;
