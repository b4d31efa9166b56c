import type { ChannelCall } from '../routing/channel-call.js';
import type { SpeechRequest } from '../schemas/speech-request.js';
import type { ChannelType } from '../store/channels.js';
import { demoSpeech } from './demo/demo-speech.js';
import { openAiSpeech } from './openai/openai-speech.js';

export type SpeechCall = ChannelCall<SpeechRequest>;

/** Audio as it arrives: binary chunks, in the requested format. */
export interface SpeechAudio {
  readonly contentType: string;
  readonly body: AsyncIterable<Buffer>;
}

/** Rejects with an UpstreamError (or a GatewayError for a format it cannot produce) before any audio is sent. */
export interface SpeechProvider {
  speak(call: SpeechCall): Promise<SpeechAudio>;
}

/** The text-to-speech adapter of each channel type; a type without one is skipped when routing speech. */
export const speechProviders: Readonly<Partial<Record<ChannelType, SpeechProvider>>> = {
  openai: openAiSpeech,
  demo: demoSpeech,
};
