import * as z from '../../schemas/zod.js';
import { lazySchema } from '../../schemas/lazy-schema.js';

/** The parts of OpenAI's wire format we read; everything else is carried through untouched. */
export const openAiErrorSchema = lazySchema(() =>
  z.looseObject({
    error: z.nullish(
      z.looseObject({
        message: z.nullish(z.string()),
        type: z.nullish(z.string()),
        param: z.nullish(z.string()),
        code: z.nullish(z.union([z.string(), z.number()])),
      }),
    ),
  }),
);

export const openAiCompletionSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    choices: z.array(z.looseObject({ index: z.number(), message: z.looseObject({}) })),
  }),
);

export const openAiChunkSchema = lazySchema(() =>
  z.looseObject({
    choices: z.nullish(z.array(z.looseObject({}))),
  }),
);
