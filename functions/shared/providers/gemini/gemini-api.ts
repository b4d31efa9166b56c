import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/** The parts of Gemini's generateContent wire format we read; lenient, as for every response. */

export const geminiErrorSchema = lazySchema(() =>
  z.looseObject({
    error: z.nullish(
      z.looseObject({ code: z.nullish(z.number()), message: z.nullish(z.string()), status: z.nullish(z.string()) }),
    ),
  }),
);

export const geminiPartSchema = lazySchema(() =>
  z.looseObject({
    text: z.nullish(z.string()),
    thought: z.nullish(z.boolean()),
    thoughtSignature: z.nullish(z.string()),
    inlineData: z.nullish(z.looseObject({ mimeType: z.string(), data: z.string() })),
    fileData: z.nullish(z.looseObject({ mimeType: z.nullish(z.string()), fileUri: z.string() })),
    functionCall: z.nullish(
      z.looseObject({
        id: z.nullish(z.string()),
        name: z.string(),
        args: z.nullish(z.record(z.string(), z.unknown())),
      }),
    ),
    functionResponse: z.nullish(z.looseObject({ id: z.nullish(z.string()), name: z.string(), response: z.unknown() })),
  }),
);

export const geminiUsageSchema = lazySchema(() =>
  z.looseObject({
    promptTokenCount: z.nullish(z.number()),
    candidatesTokenCount: z.nullish(z.number()),
    totalTokenCount: z.nullish(z.number()),
    cachedContentTokenCount: z.nullish(z.number()),
    thoughtsTokenCount: z.nullish(z.number()),
    toolUsePromptTokenCount: z.nullish(z.number()),
  }),
);

export const geminiResponseSchema = lazySchema(() =>
  z.looseObject({
    candidates: z.nullish(
      z.array(
        z.looseObject({
          content: z.nullish(
            z.looseObject({ role: z.nullish(z.string()), parts: z.nullish(z.array(geminiPartSchema())) }),
          ),
          finishReason: z.nullish(z.string()),
          index: z.nullish(z.number()),
        }),
      ),
    ),
    promptFeedback: z.nullish(z.looseObject({ blockReason: z.nullish(z.string()) })),
    usageMetadata: z.nullish(geminiUsageSchema()),
    modelVersion: z.nullish(z.string()),
    responseId: z.nullish(z.string()),
  }),
);

export type GeminiPart = LazyOutput<typeof geminiPartSchema>;
export type GeminiResponse = LazyOutput<typeof geminiResponseSchema>;
export type GeminiUsage = LazyOutput<typeof geminiUsageSchema>;
