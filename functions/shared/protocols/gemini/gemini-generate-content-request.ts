import * as z from 'zod';

/**
 * POST /v1beta/models/{model}:generateContent (and :streamGenerateContent), as Google's API bounds
 * it and the @google/genai SDK sends it. Unknown fields pass through.
 */

const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.looseObject({ mimeType: z.string().min(1), data: z.string() }).optional(),
  fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string().min(1) }).optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().min(1),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  functionResponse: z
    .looseObject({ id: z.string().optional(), name: z.string().min(1), response: z.unknown() })
    .optional(),
});

export const geminiContentSchema = z.looseObject({
  role: z.enum(['user', 'model', 'function']).optional(),
  parts: z.array(partSchema),
});

const functionDeclarationSchema = z.looseObject({
  name: z.string().min(1).max(64),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  parametersJsonSchema: z.unknown().optional(),
});

export const geminiGenerateContentRequestSchema = z.looseObject({
  contents: z.array(geminiContentSchema).min(1),
  systemInstruction: z.union([geminiContentSchema, z.string()]).optional(),
  tools: z.array(z.looseObject({ functionDeclarations: z.array(functionDeclarationSchema).optional() })).optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({
          mode: z.enum(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']).optional(),
          allowedFunctionNames: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
  generationConfig: z
    .looseObject({
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.number().optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
      stopSequences: z.array(z.string()).optional(),
      candidateCount: z.number().int().min(1).max(8).optional(),
      presencePenalty: z.number().optional(),
      frequencyPenalty: z.number().optional(),
      seed: z.number().int().optional(),
      responseMimeType: z.string().optional(),
      responseSchema: z.record(z.string(), z.unknown()).optional(),
      responseJsonSchema: z.record(z.string(), z.unknown()).optional(),
      thinkingConfig: z
        .looseObject({ thinkingBudget: z.number().int().optional(), includeThoughts: z.boolean().optional() })
        .optional(),
    })
    .optional(),
  safetySettings: z.array(z.looseObject({})).optional(),
});

export type GeminiGenerateContentRequest = z.output<typeof geminiGenerateContentRequestSchema>;
export type GeminiContent = z.output<typeof geminiContentSchema>;
