import * as z from 'zod';

/** The parts of Anthropic's wire format we read; lenient, since the gateway only reads a few fields. */

export const anthropicErrorSchema = z.looseObject({
  type: z.string().nullish(),
  error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

export const anthropicUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

const responseBlockSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
]);

/** A block of a type the gateway does not translate (server tool results, …) is kept and skipped. */
const anyBlockSchema = z.union([responseBlockSchema, z.looseObject({ type: z.string() })]);

export const anthropicMessageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  model: z.string().nullish(),
  content: z.array(anyBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
});

export const anthropicStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: anthropicMessageSchema }),
  z.looseObject({ type: z.literal('content_block_start'), index: z.number(), content_block: anyBlockSchema }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.union([
      z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
      z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
      z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
      z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
      z.looseObject({ type: z.string() }),
    ]),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: anthropicUsageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }),
  }),
]);

export type AnthropicWireMessage = z.output<typeof anthropicMessageSchema>;
export type AnthropicWireStreamEvent = z.output<typeof anthropicStreamEventSchema>;
export type AnthropicWireUsage = z.output<typeof anthropicUsageSchema>;

export const anthropicCountTokensSchema = z.looseObject({ input_tokens: z.number() });
