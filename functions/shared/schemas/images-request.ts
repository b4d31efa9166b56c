import * as z from './zod.js';
import { lazySchema, type LazyOutput } from './lazy-schema.js';

/** POST /v1/images/generations, with the bounds OpenAI documents (the strictest model's where they differ). */

export const imageSizes = [
  'auto',
  '256x256',
  '512x512',
  '1024x1024',
  '1536x1024',
  '1024x1536',
  '1792x1024',
  '1024x1792',
] as const;

export const imagesRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1)),
    prompt: z
      .string()
      .check(z.minLength(1, 'the prompt must not be empty'), z.maxLength(32_000, 'at most 32000 characters')),
    n: z.nullish(z.number().check(z.int(), z.gte(1), z.lte(10))),
    size: z.nullish(z.enum(imageSizes)),
    quality: z.nullish(z.enum(['standard', 'hd', 'low', 'medium', 'high', 'auto'])),
    style: z.nullish(z.enum(['vivid', 'natural'])),
    response_format: z.nullish(z.enum(['url', 'b64_json'])),
    background: z.nullish(z.enum(['transparent', 'opaque', 'auto'])),
    output_format: z.nullish(z.enum(['png', 'jpeg', 'webp'])),
    output_compression: z.nullish(z.number().check(z.int(), z.gte(0), z.lte(100))),
    moderation: z.nullish(z.enum(['low', 'auto'])),
    user: z.optional(z.string()),
  }),
);

export type ImagesRequest = LazyOutput<typeof imagesRequestSchema>;

export interface ImagesResult {
  created: number;
  data: { url?: string; b64_json?: string; revised_prompt?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number; total_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}
