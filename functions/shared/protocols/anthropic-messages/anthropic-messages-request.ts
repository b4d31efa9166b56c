import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/**
 * POST /v1/messages (and /v1/messages/count_tokens), as Anthropic's Messages API bounds it. Unknown
 * fields pass through (newer parameters reach a native upstream untouched); block shapes are checked
 * where the gateway reads them.
 */

const cacheControl = lazySchema(() => z.nullish(z.looseObject({ type: z.string() })));

const textBlock = lazySchema(() =>
  z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl() }),
);
const imageSource = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('base64'),
      media_type: z.string().check(z.minLength(1)),
      data: z.string().check(z.minLength(1)),
    }),
    z.looseObject({ type: z.literal('url'), url: z.string().check(z.minLength(1)) }),
  ]),
);
const imageBlock = lazySchema(() =>
  z.looseObject({ type: z.literal('image'), source: imageSource(), cache_control: cacheControl() }),
);
const documentBlock = lazySchema(() =>
  z.looseObject({ type: z.literal('document'), source: z.looseObject({ type: z.string() }) }),
);
const toolUseBlock = lazySchema(() =>
  z.looseObject({
    type: z.literal('tool_use'),
    id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.unknown(),
  }),
);
const toolResultBlock = lazySchema(() =>
  z.looseObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string().check(z.minLength(1)),
    content: z.optional(
      z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock(), imageBlock(), documentBlock()]))]),
    ),
    is_error: z.optional(z.boolean()),
    cache_control: cacheControl(),
  }),
);
const thinkingBlock = lazySchema(() =>
  z.looseObject({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.optional(z.string()),
  }),
);
const redactedThinkingBlock = lazySchema(() =>
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
);

export const anthropicContentBlockSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    textBlock(),
    imageBlock(),
    documentBlock(),
    toolUseBlock(),
    toolResultBlock(),
    thinkingBlock(),
    redactedThinkingBlock(),
  ]),
);

const turnContent = lazySchema(() => z.union([z.string(), z.array(anthropicContentBlockSchema())]));

/**
 * A turn, or a system message placed in the conversation (after a user turn): newer instructions
 * that leave the cached prefix above them intact. Claude Code sends these.
 */
const messageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    z.looseObject({ role: z.literal('user'), content: turnContent() }),
    z.looseObject({ role: z.literal('assistant'), content: turnContent() }),
    z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock())]) }),
  ]),
);

const toolSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().check(z.minLength(1), z.maxLength(128)),
    description: z.optional(z.string()),
    // Custom tools carry a JSON schema; Anthropic's server tools (`type: web_search_…`) carry none.
    input_schema: z.optional(z.record(z.string(), z.unknown())),
    type: z.optional(z.string()),
  }),
);

const toolChoiceSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.optional(z.boolean()) }),
    z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.optional(z.boolean()) }),
    z.looseObject({
      type: z.literal('tool'),
      name: z.string().check(z.minLength(1)),
      disable_parallel_tool_use: z.optional(z.boolean()),
    }),
    z.looseObject({ type: z.literal('none') }),
  ]),
);

const thinkingSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().check(z.int(), z.gte(1)) }),
    z.looseObject({ type: z.literal('disabled') }),
    z.looseObject({ type: z.literal('adaptive') }),
  ]),
);

const countTokensFields = lazySchema(() => ({
  model: z.string().check(z.minLength(1)),
  messages: z.array(messageSchema()).check(z.minLength(1)),
  system: z.optional(z.union([z.string(), z.array(textBlock())])),
  tools: z.optional(z.array(toolSchema())),
  tool_choice: z.optional(toolChoiceSchema()),
  thinking: z.optional(thinkingSchema()),
}));

export const anthropicCountTokensRequestSchema = lazySchema(() => z.looseObject(countTokensFields()));

export const anthropicMessagesRequestSchema = lazySchema(() =>
  z.looseObject({
    ...countTokensFields(),
    max_tokens: z.number().check(z.int(), z.gte(1)),
    stop_sequences: z.optional(z.array(z.string())),
    temperature: z.optional(z.number().check(z.gte(0), z.lte(1))),
    top_p: z.optional(z.number().check(z.gte(0), z.lte(1))),
    top_k: z.optional(z.number().check(z.int(), z.gte(0))),
    stream: z.optional(z.boolean()),
    metadata: z.optional(z.looseObject({ user_id: z.nullish(z.string()) })),
  }),
);

export type AnthropicMessagesRequest = LazyOutput<typeof anthropicMessagesRequestSchema>;
export type AnthropicCountTokensRequest = LazyOutput<typeof anthropicCountTokensRequestSchema>;
export type AnthropicContentBlock = LazyOutput<typeof anthropicContentBlockSchema>;
export type AnthropicMessageParam = AnthropicMessagesRequest['messages'][number];
