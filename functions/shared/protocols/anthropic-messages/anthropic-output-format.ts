import type { ChatCompletionRequest } from '../openai-chat/chat-completion-request.js';

/**
 * Structured output between the two formats. Anthropic takes a JSON schema as
 * `output_config: {format: {type: "json_schema", schema}}` (its structured-outputs beta named it
 * `output_format` at the top level; both are read). OpenAI takes `response_format` with a named schema.
 */

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The JSON schema an Anthropic request asks its answer to follow, if any. */
const anthropicSchema = (request: Readonly<Record<string, unknown>>): Schema | undefined => {
  const config = request['output_config'];
  const format = isRecord(config) && isRecord(config['format']) ? config['format'] : request['output_format'];
  if (!isRecord(format) || format['type'] !== 'json_schema' || !isRecord(format['schema'])) return undefined;
  return format['schema'];
};

/** An Anthropic request's output format as OpenAI's `response_format` (strict, as Anthropic enforces it). */
export const toChatResponseFormat = (
  request: Readonly<Record<string, unknown>>,
): ChatCompletionRequest['response_format'] => {
  const schema = anthropicSchema(request);
  return schema ? { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } } : undefined;
};

/** OpenAI's `response_format` as Anthropic's `output_config`; JSON mode has no Anthropic field. */
export const toAnthropicOutputConfig = (
  format: ChatCompletionRequest['response_format'],
): { format: { type: 'json_schema'; schema: Schema } } | undefined => {
  if (format?.type !== 'json_schema' || !format.json_schema.schema) return undefined;
  return { format: { type: 'json_schema', schema: format.json_schema.schema } };
};

/**
 * What stands in for JSON mode on Anthropic, which has no schema-less JSON switch: an instruction at
 * the end of the system prompt (the model then answers with JSON, though nothing enforces it).
 */
export const JSON_MODE_INSTRUCTION = 'Respond with a single valid JSON object and nothing else.';
