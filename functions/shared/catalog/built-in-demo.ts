import { log } from '../log.js';
import { listChannels, type Channel } from '../store/channels.js';

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

/**
 * Says so, in one log line, when new channels (`added`, ids that did not exist before) have just
 * retired the built-in demo channel: `demo-1` answers 404 from now on, which should not be a surprise.
 */
export const announceDemoRetirement = async (added: readonly string[]): Promise<void> => {
  if (added.length === 0) return;
  const channels = await listChannels();
  if (!channels.some(isBuiltInDemo)) return;
  const others = channels.filter((channel) => !isBuiltInDemo(channel));
  if (others.length === 0 || others.some((channel) => !added.includes(channel.id))) return;
  log.info(
    `The built-in demo channel is retired: channel '${others[0]!.id}' serves models now and demo-1 is no longer served. Delete the channel 'demo' to stop listing it.`,
  );
};
