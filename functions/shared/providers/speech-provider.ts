import type { SpeechRequest } from '../schemas/speech-request.js';
import type { ChannelCall } from './channel-call.js';

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
