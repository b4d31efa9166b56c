import { invalidValue } from '../../errors.js';
import { speechContentTypes, speechVoices } from '../../schemas/speech-request.js';
import type { SpeechProvider } from '../speech-provider.js';
import { DEMO_SAMPLE_RATE, toneSamples, wavHeader } from './wav-encoder.js';

/**
 * The demo's speech: a tone whose length follows the input (about 50 ms a character, at most 10 s,
 * divided by `speed`) and whose pitch follows the voice. Real audio, in the formats that need no codec:
 * `wav` and `pcm` (24 kHz, 16-bit, mono). Other formats are a 400 naming `response_format`.
 */
const CHUNK_SAMPLES = 4096;
const voicePitch = (voice: string) => 220 * 2 ** (speechVoices.indexOf(voice as (typeof speechVoices)[number]) / 6);

export const demoDurationSeconds = (characters: number, speed: number): number =>
  Math.min(10, 0.2 + characters * 0.05) / speed;

export const demoSpeech: SpeechProvider = {
  async speak(call) {
    const format = call.request.response_format ?? 'mp3';
    if (format !== 'wav' && format !== 'pcm') {
      throw invalidValue(
        `The demo model produces audio only as 'wav' or 'pcm' (24 kHz, 16-bit, mono); '${format}' needs a real speech model. Set response_format to 'wav' or 'pcm'.`,
        'response_format',
      );
    }
    const total = Math.round(
      demoDurationSeconds(call.request.input.length, call.request.speed ?? 1) * DEMO_SAMPLE_RATE,
    );
    const frequency = voicePitch(call.request.voice);
    const { signal } = call;
    async function* audio(): AsyncGenerator<Buffer> {
      if (format === 'wav') yield wavHeader(total * 2);
      for (let start = 0; start < total && !signal.aborted; start += CHUNK_SAMPLES) {
        yield toneSamples(frequency, start, Math.min(CHUNK_SAMPLES, total - start), total);
      }
    }
    return { contentType: speechContentTypes[format], body: audio() };
  },
};
