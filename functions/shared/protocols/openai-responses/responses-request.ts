import * as z from 'zod';

/**
 * POST /v1/responses. Bounds the fields the gateway reads (and, for chat-only channels, translates);
 * everything else passes through to a native upstream untouched. Input items are checked loosely here
 * and precisely by the translator, which knows which item types it can express in chat.
 */

const inputItemSchema = z.looseObject({
  type: z.string().optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']).optional(),
});

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - and at most 64 characters'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

// Hosted tools (web_search, file_search, …) exist only on native upstreams: checked by the translator.
const toolSchema = z.union([functionToolSchema, z.looseObject({ type: z.string().min(1) })]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({ type: z.string().min(1), name: z.string().optional() }),
    ])
    .optional(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z
    .looseObject({ effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish() })
    .nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string() }).optional() }).nullish(),
  user: z.string().optional(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
});

export type ResponsesRequest = z.output<typeof responsesRequestSchema>;
export type ResponsesInputItem = z.output<typeof inputItemSchema>;
