import type { ChannelType } from '../store/channels.js';
import { openAiResponses } from './openai/openai-responses.js';
import { adapterIn, type AdaptersOf } from './provider-capabilities.js';

/** The responses adapter of each channel type that declares one in `providerCapabilities`. */
export const responsesAdapters: AdaptersOf<'responses'> = { openai: openAiResponses };

export const responsesAdapterOf = (type: ChannelType) => adapterIn(responsesAdapters, type, 'responses');
