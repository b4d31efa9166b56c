import type { ChannelType } from '../store/channels.js';
import { demoImages } from './demo/demo-image.js';
import { openAiImages } from './openai/openai-images.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The images adapter of each channel type that declares one in `providerCapabilities`. */
export const imagesAdapters: AdaptersOf<'images'> = { openai: openAiImages, demo: demoImages };

export const imagesAdapterOf = (type: ChannelType) => adapterIn(imagesAdapters, type, 'images');
