import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/** The parts of Anthropic's wire format we read; lenient, since the gateway only reads a few fields. */

export const anthropicErrorSchema = lazySchema(() =>
  z.looseObject({
    type: z.nullish(z.string()),
    error: z.nullish(z.looseObject({ type: z.nullish(z.string()), message: z.nullish(z.string()) })),
  }),
);

export const anthropicUsageSchema = lazySchema(() =>
  z.looseObject({
    input_tokens: z.nullish(z.number()),
    output_tokens: z.nullish(z.number()),
    cache_creation_input_tokens: z.nullish(z.number()),
    cache_read_input_tokens: z.nullish(z.number()),
  }),
);

const responseBlockSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text'), text: z.string() }),
    z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.nullish(z.string()) }),
    z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
    z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  ]),
);

/**
 * An object of a type other than `known`: what the gateway does not read is kept and skipped, and a
 * known type must match its own shape, not pass as an unknown one.
 */
const otherTypeSchema = (known: readonly string[]) =>
  z.looseObject({ type: z.string().check(z.refine((type) => !known.includes(type))) });

/** A block of a type the gateway does not translate (server tool results, …) is kept and skipped. */
const anyBlockSchema = lazySchema(() =>
  z.union([responseBlockSchema(), otherTypeSchema(['text', 'thinking', 'redacted_thinking', 'tool_use'])]),
);

export const anthropicMessageSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    type: z.literal('message'),
    model: z.nullish(z.string()),
    content: z.array(anyBlockSchema()),
    stop_reason: z.nullish(z.string()),
    stop_sequence: z.nullish(z.string()),
    usage: z.nullish(anthropicUsageSchema()),
  }),
);

export const anthropicStreamEventSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('message_start'), message: anthropicMessageSchema() }),
    z.looseObject({ type: z.literal('content_block_start'), index: z.number(), content_block: anyBlockSchema() }),
    z.looseObject({
      type: z.literal('content_block_delta'),
      index: z.number(),
      delta: z.union([
        z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
        z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
        z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
        z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
        otherTypeSchema(['text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta']),
      ]),
    }),
    z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
    z.looseObject({
      type: z.literal('message_delta'),
      delta: z.looseObject({ stop_reason: z.nullish(z.string()), stop_sequence: z.nullish(z.string()) }),
      usage: z.nullish(anthropicUsageSchema()),
    }),
    z.looseObject({ type: z.literal('message_stop') }),
    z.looseObject({ type: z.literal('ping') }),
    z.looseObject({
      type: z.literal('error'),
      error: z.looseObject({ type: z.nullish(z.string()), message: z.nullish(z.string()) }),
    }),
  ]),
);

export type AnthropicWireMessage = LazyOutput<typeof anthropicMessageSchema>;
export type AnthropicWireStreamEvent = LazyOutput<typeof anthropicStreamEventSchema>;
export type AnthropicWireUsage = LazyOutput<typeof anthropicUsageSchema>;

/** A count is a whole number of tokens: anything else is a broken answer, not a count to pass on. */
export const anthropicCountTokensSchema = lazySchema(() =>
  z.looseObject({ input_tokens: z.number().check(z.int(), z.gte(0)) }),
);
