import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';
import { thinkingBlockSchema } from './thinking-blocks.js';

/**
 * POST /v1/chat/completions, as the spec bounds it. Unknown fields pass through untouched (clients
 * use newer parameters before we know them), and no defaults are written into the body: a field the
 * client left out stays out of the upstream request, since some models refuse e.g. `temperature`.
 */

const textPart = lazySchema(() => z.looseObject({ type: z.literal('text'), text: z.string() }));
const imagePart = lazySchema(() =>
  z.looseObject({
    type: z.literal('image_url'),
    image_url: z.looseObject({
      url: z.string().check(z.minLength(1)),
      detail: z.optional(z.enum(['low', 'high', 'auto'])),
    }),
  }),
);
const audioPart = lazySchema(() =>
  z.looseObject({
    type: z.literal('input_audio'),
    input_audio: z.looseObject({ data: z.string().check(z.minLength(1)), format: z.enum(['wav', 'mp3']) }),
  }),
);
const filePart = lazySchema(() =>
  z.looseObject({
    type: z.literal('file'),
    file: z.looseObject({
      filename: z.optional(z.string()),
      file_data: z.optional(z.string()),
      file_id: z.optional(z.string()),
    }),
  }),
);
const videoPart = lazySchema(() =>
  z.looseObject({
    type: z.literal('video_url'),
    video_url: z.looseObject({ url: z.string().check(z.minLength(1)) }),
  }),
);
// Assistant turns replayed from OpenAI's own answers may carry a refusal part.
const refusalPart = lazySchema(() => z.looseObject({ type: z.literal('refusal'), refusal: z.string() }));

export const contentPartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [textPart(), imagePart(), audioPart(), filePart(), videoPart(), refusalPart()]),
);

const toolCallSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    type: z.literal('function'),
    function: z.looseObject({ name: z.string(), arguments: z.string() }),
  }),
);

export const chatMessageSchema = lazySchema(() =>
  z
    .looseObject({
      role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
      content: z.nullish(z.union([z.string(), z.array(contentPartSchema())])),
      name: z.optional(z.string()),
      tool_calls: z.optional(z.array(toolCallSchema())),
      tool_call_id: z.optional(z.string()),
      reasoning_content: z.nullish(z.string()),
      thinking_blocks: z.optional(z.array(thinkingBlockSchema())),
    })
    // Refinements, not a `superRefine`: that one sets a closure made for each value on zod's payload
    // (`addIssue`), a shape V8 keeps past young collections, and with it every message of every
    // request, its content included, was promoted for a full collection to free.
    .check(
      // Only an assistant turn that calls tools may come without content.
      z.refine(
        (message) => message.role === 'assistant' || (message.content !== undefined && message.content !== null),
        {
          path: ['content'],
          error: (issue) => `a ${(issue.input as { role: string }).role} message needs content`,
        },
      ),
      z.refine((message) => message.role !== 'tool' || Boolean(message.tool_call_id), {
        path: ['tool_call_id'],
        error: 'a tool message needs the tool_call_id it answers',
      }),
    ),
);

const functionToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function'),
    function: z.looseObject({
      name: z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - and at most 64 characters')),
      description: z.optional(z.string()),
      parameters: z.optional(z.record(z.string(), z.unknown())),
      strict: z.nullish(z.boolean()),
    }),
  }),
);

const toolChoiceSchema = lazySchema(() =>
  z.union([
    z.enum(['none', 'auto', 'required']),
    z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().check(z.minLength(1)) }) }),
  ]),
);

const responseFormatSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text') }),
    z.looseObject({ type: z.literal('json_object') }),
    z.looseObject({
      type: z.literal('json_schema'),
      json_schema: z.looseObject({
        name: z.string().check(z.minLength(1), z.maxLength(64)),
        schema: z.optional(z.record(z.string(), z.unknown())),
      }),
    }),
  ]),
);

const penalty = lazySchema(() => z.number().check(z.gte(-2), z.lte(2)));

export const chatCompletionRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1)),
    messages: z.array(chatMessageSchema()).check(z.minLength(1)),
    temperature: z.nullish(z.number().check(z.gte(0), z.lte(2))),
    top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
    n: z.nullish(z.number().check(z.int(), z.gte(1), z.lte(128))),
    stream: z.nullish(z.boolean()),
    stream_options: z.nullish(z.looseObject({ include_usage: z.optional(z.boolean()) })),
    stop: z.nullish(z.union([z.string(), z.array(z.string())])),
    max_tokens: z.nullish(z.number().check(z.int(), z.gte(1))),
    max_completion_tokens: z.nullish(z.number().check(z.int(), z.gte(1))),
    presence_penalty: z.nullish(penalty()),
    frequency_penalty: z.nullish(penalty()),
    logit_bias: z.nullish(z.record(z.string(), z.number().check(z.gte(-100), z.lte(100)))),
    user: z.optional(z.string()),
    tools: z.optional(z.array(functionToolSchema())),
    tool_choice: z.optional(toolChoiceSchema()),
    response_format: z.optional(responseFormatSchema()),
    seed: z.nullish(z.number().check(z.int())),
    reasoning_effort: z.nullish(z.enum(['minimal', 'low', 'medium', 'high'])),
    modalities: z.nullish(z.array(z.enum(['text', 'audio']))),
    audio: z.nullish(
      z.looseObject({ voice: z.string().check(z.minLength(1)), format: z.string().check(z.minLength(1)) }),
    ),
  }),
);

export type ChatCompletionRequest = LazyOutput<typeof chatCompletionRequestSchema>;
export type ChatMessage = LazyOutput<typeof chatMessageSchema>;
export type ContentPart = LazyOutput<typeof contentPartSchema>;
