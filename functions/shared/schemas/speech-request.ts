import * as z from './zod.js';
import { lazySchema, type LazyOutput } from './lazy-schema.js';

/** POST /v1/audio/speech, bounded exactly as the spec's Limits table says. */

export const speechVoices = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] as const;
export const speechFormats = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type SpeechFormat = (typeof speechFormats)[number];

export const SPEECH_INPUT_LIMIT = 4096;

/** Unknown fields (e.g. `instructions`) pass through to the upstream; no defaults are written in. */
export const speechRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1)),
    input: z
      .string()
      .check(
        z.minLength(1, 'the input text must not be empty'),
        z.maxLength(SPEECH_INPUT_LIMIT, `at most ${SPEECH_INPUT_LIMIT} characters`),
      ),
    // A string first, so that a missing voice reads as missing rather than as an unknown one.
    voice: z.pipe(z.string(), z.enum(speechVoices)),
    response_format: z.optional(z.enum(speechFormats)),
    speed: z.optional(z.number().check(z.gte(0.25), z.lte(4))),
  }),
);

export type SpeechRequest = LazyOutput<typeof speechRequestSchema>;

/** The content type of each audio format, as the client receives it. */
export const speechContentTypes: Readonly<Record<SpeechFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
