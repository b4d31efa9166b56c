import type { Channel } from '../store/channels.js';

// Placeholder until the Secrets Manager reader lands: the key is on the record itself.
export const channelWithKey = async (channel: Channel): Promise<Channel> => channel;
