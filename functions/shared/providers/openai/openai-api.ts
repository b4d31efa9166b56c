import * as z from 'zod';

/** The parts of OpenAI's wire format we read; everything else is carried through untouched. */
export const openAiErrorSchema = z.looseObject({
  error: z
    .looseObject({
      message: z.string().nullish(),
      type: z.string().nullish(),
      param: z.string().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    })
    .nullish(),
});

export const openAiCompletionSchema = z.looseObject({
  id: z.string(),
  choices: z.array(z.looseObject({ index: z.number(), message: z.looseObject({}) })),
});

export const openAiChunkSchema = z.looseObject({
  choices: z.array(z.looseObject({})).nullish(),
});
