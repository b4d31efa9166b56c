import type { ChannelCall } from '../routing/channel-call.js';
import type { ImagesRequest, ImagesResult } from '../schemas/images-request.js';
import type { ChannelType } from '../store/channels.js';
import { demoImages } from './demo/demo-image.js';
import { openAiImages } from './openai/openai-images.js';

export type ImagesCall = ChannelCall<ImagesRequest>;

/** Rejects with an UpstreamError when the channel fails (the router may then try another). */
export interface ImagesProvider {
  generate(call: ImagesCall): Promise<ImagesResult>;
}

/** The image-generation adapter of each channel type; a type without one is skipped when routing images. */
export const imagesProviders: Readonly<Partial<Record<ChannelType, ImagesProvider>>> = {
  openai: openAiImages,
  demo: demoImages,
};
