import * as z from './zod.js';
import { lazySchema, type LazyOutput } from './lazy-schema.js';

/** POST /v1/embeddings, with OpenAI's documented bounds (at most 2048 inputs per request). */

const MAX_INPUTS = 2048;
const tokenId = lazySchema(() => z.number().check(z.int(), z.gte(0)));

export const embeddingsInputSchema = lazySchema(() =>
  z.union(
    [
      z.string().check(z.minLength(1, 'the input must not be empty')),
      z
        .array(z.string().check(z.minLength(1, 'an input must not be empty')))
        .check(z.minLength(1), z.maxLength(MAX_INPUTS)),
      z.array(tokenId()).check(z.minLength(1)),
      z.array(z.array(tokenId()).check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_INPUTS)),
    ],
    { error: 'must be a non-empty string, array of strings, array of token ids, or array of token arrays' },
  ),
);

export const embeddingsRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1)),
    input: embeddingsInputSchema(),
    encoding_format: z.optional(z.enum(['float', 'base64'])),
    dimensions: z.optional(z.number().check(z.int(), z.gte(1))),
    user: z.optional(z.string()),
  }),
);

export type EmbeddingsRequest = LazyOutput<typeof embeddingsRequestSchema>;
export type EmbeddingsInput = EmbeddingsRequest['input'];

/** The result (OpenAI wire format). `embedding` is a base64 string of little-endian float32 when asked for. */
export interface EmbeddingsResult {
  object: 'list';
  data: { object: 'embedding'; embedding: number[] | string; index: number }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  [extra: string]: unknown;
}

/** Each input as a list: strings, or token arrays. */
export const embeddingsInputs = (input: EmbeddingsInput): readonly (string | readonly number[])[] => {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as (string | number[])[];
};
