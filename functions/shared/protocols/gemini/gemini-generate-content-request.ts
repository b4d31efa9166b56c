import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/**
 * POST /v1beta/models/{model}:generateContent (and :streamGenerateContent), as Google's API bounds
 * it and the @google/genai SDK sends it. Unknown fields pass through.
 */

const partSchema = lazySchema(() =>
  z.looseObject({
    text: z.optional(z.string()),
    thought: z.optional(z.boolean()),
    thoughtSignature: z.optional(z.string()),
    inlineData: z.optional(z.looseObject({ mimeType: z.string().check(z.minLength(1)), data: z.string() })),
    fileData: z.optional(
      z.looseObject({ mimeType: z.optional(z.string()), fileUri: z.string().check(z.minLength(1)) }),
    ),
    functionCall: z.optional(
      z.looseObject({
        id: z.optional(z.string()),
        name: z.string().check(z.minLength(1)),
        args: z.optional(z.record(z.string(), z.unknown())),
      }),
    ),
    functionResponse: z.optional(
      z.looseObject({ id: z.optional(z.string()), name: z.string().check(z.minLength(1)), response: z.unknown() }),
    ),
  }),
);

export const geminiContentSchema = lazySchema(() =>
  z.looseObject({
    role: z.optional(z.enum(['user', 'model', 'function'])),
    parts: z.array(partSchema()),
  }),
);

const functionDeclarationSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().check(z.minLength(1), z.maxLength(64)),
    description: z.optional(z.string()),
    parameters: z.optional(z.record(z.string(), z.unknown())),
    parametersJsonSchema: z.optional(z.unknown()),
  }),
);

export const geminiGenerateContentRequestSchema = lazySchema(() =>
  z.looseObject({
    contents: z.array(geminiContentSchema()).check(z.minLength(1)),
    systemInstruction: z.optional(z.union([geminiContentSchema(), z.string()])),
    tools: z.optional(
      z.array(z.looseObject({ functionDeclarations: z.optional(z.array(functionDeclarationSchema())) })),
    ),
    toolConfig: z.optional(
      z.looseObject({
        functionCallingConfig: z.optional(
          z.looseObject({
            mode: z.optional(z.enum(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'])),
            allowedFunctionNames: z.optional(z.array(z.string())),
          }),
        ),
      }),
    ),
    generationConfig: z.optional(
      z.looseObject({
        temperature: z.optional(z.number().check(z.gte(0), z.lte(2))),
        topP: z.optional(z.number().check(z.gte(0), z.lte(1))),
        topK: z.optional(z.number()),
        maxOutputTokens: z.optional(z.number().check(z.int(), z.gte(1))),
        stopSequences: z.optional(z.array(z.string())),
        candidateCount: z.optional(z.number().check(z.int(), z.gte(1), z.lte(8))),
        presencePenalty: z.optional(z.number()),
        frequencyPenalty: z.optional(z.number()),
        seed: z.optional(z.number().check(z.int())),
        responseMimeType: z.optional(z.string()),
        responseSchema: z.optional(z.record(z.string(), z.unknown())),
        responseJsonSchema: z.optional(z.record(z.string(), z.unknown())),
        thinkingConfig: z.optional(
          z.looseObject({
            thinkingBudget: z.optional(z.number().check(z.int())),
            includeThoughts: z.optional(z.boolean()),
          }),
        ),
      }),
    ),
    safetySettings: z.optional(z.array(z.looseObject({}))),
  }),
);

export type GeminiGenerateContentRequest = LazyOutput<typeof geminiGenerateContentRequestSchema>;
export type GeminiContent = LazyOutput<typeof geminiContentSchema>;
