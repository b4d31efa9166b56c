import type { ChannelType } from '../store/channels.js';
import { onFirstCall } from './deferred-adapter.js';
import type { ImagesProvider } from './images-provider.js';
import { openAiImages } from './openai/openai-images.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

const imagesMethods: Record<keyof ImagesProvider, true> = { generate: true };

/** The images adapter of each channel type that declares one in `providerCapabilities`; the demo's loads on first use. */
export const imagesAdapters: AdaptersOf<'images'> = {
  openai: openAiImages,
  demo: onFirstCall(async () => (await import('./demo/demo-image.js')).demoImages, imagesMethods),
};

export const imagesAdapterOf = (type: ChannelType) => adapterIn(imagesAdapters, type, 'images');
