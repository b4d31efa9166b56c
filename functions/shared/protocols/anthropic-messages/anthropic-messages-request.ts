import * as z from 'zod';

/**
 * POST /v1/messages (and /v1/messages/count_tokens), as Anthropic's Messages API bounds it. Unknown
 * fields pass through (newer parameters reach a native upstream untouched); block shapes are checked
 * where the gateway reads them.
 */

const cacheControl = z.looseObject({ type: z.string() }).nullish();

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });
const imageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
]);
const imageBlock = z.looseObject({ type: z.literal('image'), source: imageSource, cache_control: cacheControl });
const documentBlock = z.looseObject({ type: z.literal('document'), source: z.looseObject({ type: z.string() }) });
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock, documentBlock]))])
    .optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});
const thinkingBlock = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

export const anthropicContentBlockSchema = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  documentBlock,
  toolUseBlock,
  toolResultBlock,
  thinkingBlock,
  redactedThinkingBlock,
]);

const turnContent = z.union([z.string(), z.array(anthropicContentBlockSchema)]);

/**
 * A turn, or a system message placed in the conversation (after a user turn): newer instructions
 * that leave the cached prefix above them intact. Claude Code sends these.
 */
const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: turnContent }),
  z.looseObject({ role: z.literal('assistant'), content: turnContent }),
  z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock)]) }),
]);

const toolSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  // Custom tools carry a JSON schema; Anthropic's server tools (`type: web_search_…`) carry none.
  input_schema: z.record(z.string(), z.unknown()).optional(),
  type: z.string().optional(),
});

const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({
    type: z.literal('tool'),
    name: z.string().min(1),
    disable_parallel_tool_use: z.boolean().optional(),
  }),
  z.looseObject({ type: z.literal('none') }),
]);

const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1) }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);

const countTokensFields = {
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
};

export const anthropicCountTokensRequestSchema = z.looseObject(countTokensFields);

export const anthropicMessagesRequestSchema = z.looseObject({
  ...countTokensFields,
  max_tokens: z.number().int().min(1),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  stream: z.boolean().optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
});

export type AnthropicMessagesRequest = z.output<typeof anthropicMessagesRequestSchema>;
export type AnthropicCountTokensRequest = z.output<typeof anthropicCountTokensRequestSchema>;
export type AnthropicContentBlock = z.output<typeof anthropicContentBlockSchema>;
export type AnthropicMessageParam = AnthropicMessagesRequest['messages'][number];
