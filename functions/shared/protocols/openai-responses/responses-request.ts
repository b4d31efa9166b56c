import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/**
 * POST /v1/responses. Bounds the fields the gateway reads (and, for chat-only channels, translates);
 * everything else passes through to a native upstream untouched. Input items are checked loosely here
 * and precisely by the translator, which knows which item types it can express in chat.
 */

const inputItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.optional(z.string()),
    role: z.optional(z.enum(['user', 'assistant', 'system', 'developer'])),
  }),
);

const functionToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function'),
    name: z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - and at most 64 characters')),
    description: z.nullish(z.string()),
    parameters: z.nullish(z.record(z.string(), z.unknown())),
    strict: z.nullish(z.boolean()),
  }),
);

// Hosted tools (web_search, file_search, …) exist only on native upstreams: checked by the translator.
const toolSchema = lazySchema(() =>
  z.union([functionToolSchema(), z.looseObject({ type: z.string().check(z.minLength(1)) })]),
);

export const responsesRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1)),
    input: z.optional(z.union([z.string(), z.array(inputItemSchema())])),
    instructions: z.nullish(z.string()),
    tools: z.optional(z.array(toolSchema())),
    tool_choice: z.optional(
      z.union([
        z.enum(['none', 'auto', 'required']),
        z.looseObject({ type: z.string().check(z.minLength(1)), name: z.optional(z.string()) }),
      ]),
    ),
    max_output_tokens: z.nullish(z.number().check(z.int(), z.gte(1))),
    temperature: z.nullish(z.number().check(z.gte(0), z.lte(2))),
    top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
    stream: z.nullish(z.boolean()),
    previous_response_id: z.nullish(z.string()),
    parallel_tool_calls: z.nullish(z.boolean()),
    reasoning: z.nullish(
      z.looseObject({ effort: z.nullish(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])) }),
    ),
    text: z.nullish(z.looseObject({ format: z.optional(z.looseObject({ type: z.string() })) })),
    user: z.optional(z.string()),
    metadata: z.nullish(z.record(z.string(), z.string())),
    store: z.nullish(z.boolean()),
  }),
);

export type ResponsesRequest = LazyOutput<typeof responsesRequestSchema>;
export type ResponsesInputItem = LazyOutput<typeof inputItemSchema>;
