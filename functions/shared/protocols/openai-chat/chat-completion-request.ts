import * as z from 'zod';
import { thinkingBlockSchema } from './thinking-blocks.js';

/**
 * POST /v1/chat/completions, as the spec bounds it. Unknown fields pass through untouched (clients
 * use newer parameters before we know them), and no defaults are written into the body: a field the
 * client left out stays out of the upstream request, since some models refuse e.g. `temperature`.
 */

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['low', 'high', 'auto']).optional() }),
});
const audioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string().min(1), format: z.enum(['wav', 'mp3']) }),
});
const filePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    filename: z.string().optional(),
    file_data: z.string().optional(),
    file_id: z.string().optional(),
  }),
});
const videoPart = z.looseObject({ type: z.literal('video_url'), video_url: z.looseObject({ url: z.string().min(1) }) });
// Assistant turns replayed from OpenAI's own answers may carry a refusal part.
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

export const contentPartSchema = z.discriminatedUnion('type', [
  textPart,
  imagePart,
  audioPart,
  filePart,
  videoPart,
  refusalPart,
]);

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const chatMessageSchema = z
  .looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
    content: z.union([z.string(), z.array(contentPartSchema)]).nullish(),
    name: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    tool_call_id: z.string().optional(),
    reasoning_content: z.string().nullish(),
    thinking_blocks: z.array(thinkingBlockSchema).optional(),
  })
  .superRefine((message, context) => {
    // Only an assistant turn that calls tools may come without content.
    const mayOmitContent = message.role === 'assistant';
    if (!mayOmitContent && (message.content === undefined || message.content === null)) {
      context.addIssue({ code: 'custom', path: ['content'], message: `a ${message.role} message needs content` });
    }
    if (message.role === 'tool' && !message.tool_call_id) {
      context.addIssue({
        code: 'custom',
        path: ['tool_call_id'],
        message: 'a tool message needs the tool_call_id it answers',
      });
    }
  });

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - and at most 64 characters'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().min(1).max(64),
      schema: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
]);

const penalty = z.number().min(-2).max(2);

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  presence_penalty: penalty.nullish(),
  frequency_penalty: penalty.nullish(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullish(),
  user: z.string().optional(),
  tools: z.array(functionToolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  response_format: responseFormatSchema.optional(),
  seed: z.number().int().nullish(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullish(),
  modalities: z.array(z.enum(['text', 'audio'])).nullish(),
  audio: z.looseObject({ voice: z.string().min(1), format: z.string().min(1) }).nullish(),
});

export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;
export type ChatMessage = z.output<typeof chatMessageSchema>;
export type ContentPart = z.output<typeof contentPartSchema>;
