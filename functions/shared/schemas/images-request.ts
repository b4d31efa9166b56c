import * as z from 'zod';

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

export const imagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  prompt: z.string().min(1, 'the prompt must not be empty').max(32_000, 'at most 32000 characters'),
  n: z.number().int().min(1).max(10).nullish(),
  size: z.enum(imageSizes).nullish(),
  quality: z.enum(['standard', 'hd', 'low', 'medium', 'high', 'auto']).nullish(),
  style: z.enum(['vivid', 'natural']).nullish(),
  response_format: z.enum(['url', 'b64_json']).nullish(),
  background: z.enum(['transparent', 'opaque', 'auto']).nullish(),
  output_format: z.enum(['png', 'jpeg', 'webp']).nullish(),
  output_compression: z.number().int().min(0).max(100).nullish(),
  moderation: z.enum(['low', 'auto']).nullish(),
  user: z.string().optional(),
});

export type ImagesRequest = z.output<typeof imagesRequestSchema>;

export interface ImagesResult {
  created: number;
  data: { url?: string; b64_json?: string; revised_prompt?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number; total_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}
