import type { ImagesRequest, ImagesResult } from '../schemas/images-request.js';
import type { ChannelCall } from './channel-call.js';

export type ImagesCall = ChannelCall<ImagesRequest>;

/** Rejects with an UpstreamError when the channel fails (the router may then try another). */
export interface ImagesProvider {
  generate(call: ImagesCall): Promise<ImagesResult>;
}
