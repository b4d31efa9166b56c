import type { ChannelType } from '../store/channels.js';
import { demoSpeech } from './demo/demo-speech.js';
import { openAiSpeech } from './openai/openai-speech.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The speech adapter of each channel type that declares one in `providerCapabilities`. */
export const speechAdapters: AdaptersOf<'speech'> = { openai: openAiSpeech, demo: demoSpeech };

export const speechAdapterOf = (type: ChannelType) => adapterIn(speechAdapters, type, 'speech');
