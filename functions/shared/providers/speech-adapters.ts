import type { ChannelType } from '../store/channels.js';
import { onFirstCall } from './deferred-adapter.js';
import { openAiSpeech } from './openai/openai-speech.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';
import type { SpeechProvider } from './speech-provider.js';

const speechMethods: Record<keyof SpeechProvider, true> = { speak: true };

/** The speech adapter of each channel type that declares one in `providerCapabilities`; the demo's loads on first use. */
export const speechAdapters: AdaptersOf<'speech'> = {
  openai: openAiSpeech,
  demo: onFirstCall(async () => (await import('./demo/demo-speech.js')).demoSpeech, speechMethods),
};

export const speechAdapterOf = (type: ChannelType) => adapterIn(speechAdapters, type, 'speech');
