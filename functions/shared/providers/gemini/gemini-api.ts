import * as z from 'zod';

/** The parts of Gemini's generateContent wire format we read; lenient, as for every response. */

export const geminiErrorSchema = z.looseObject({
  error: z
    .looseObject({ code: z.number().nullish(), message: z.string().nullish(), status: z.string().nullish() })
    .nullish(),
});

export const geminiPartSchema = z.looseObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).nullish(),
  fileData: z.looseObject({ mimeType: z.string().nullish(), fileUri: z.string() }).nullish(),
  functionCall: z
    .looseObject({ id: z.string().nullish(), name: z.string(), args: z.record(z.string(), z.unknown()).nullish() })
    .nullish(),
  functionResponse: z.looseObject({ id: z.string().nullish(), name: z.string(), response: z.unknown() }).nullish(),
});

export const geminiUsageSchema = z.looseObject({
  promptTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  totalTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  toolUsePromptTokenCount: z.number().nullish(),
});

export const geminiResponseSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ role: z.string().nullish(), parts: z.array(geminiPartSchema).nullish() }).nullish(),
        finishReason: z.string().nullish(),
        index: z.number().nullish(),
      }),
    )
    .nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: geminiUsageSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
});

export type GeminiPart = z.output<typeof geminiPartSchema>;
export type GeminiResponse = z.output<typeof geminiResponseSchema>;
export type GeminiUsage = z.output<typeof geminiUsageSchema>;
