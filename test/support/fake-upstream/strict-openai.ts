import type { ReceivedRequest } from './fake-upstream.js';
import { openAiRoutes } from './openai-wire.js';
import { strictRoutes, type Refusal } from './strict-wire.js';

/**
 * OpenAI's chat completions as strict as the real API on what translated agent traffic carries:
 * no properties it does not define in messages and parts, and the parameters a model family takes
 * (reasoning models refuse `max_tokens`, the others `reasoning_effort`). OpenAI's envelope and texts.
 */

const refusal = (message: string, param: string | null, code: string | null = null): Refusal => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

const reasoningModel = (model: string) => /^(?:o\d|gpt-5)/.test(model);

const messageKeys = new Set([
  'role',
  'content',
  'name',
  'tool_calls',
  'tool_call_id',
  'refusal',
  'audio',
  'function_call',
  // Accepted by OpenAI-compatible reasoning servers and ignored by OpenAI for assistant turns.
  'reasoning_content',
]);
const partKeys = new Set(['type', 'text', 'image_url', 'input_audio', 'file', 'refusal']);
const toolKeys = new Set(['type', 'function']);

const additional = (key: string, path: string) =>
  refusal(`Additional properties are not allowed ('${key}' was unexpected) - '${path}'`, path);

export const checkOpenAiRequest = (request: ReceivedRequest): Refusal | undefined => {
  const body = request.body ?? {};
  const model = String(body.model ?? '');
  if (reasoningModel(model) && body.max_tokens !== undefined)
    return refusal(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  if (!reasoningModel(model) && body.reasoning_effort !== undefined)
    return refusal(
      "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      'reasoning_effort',
      'unsupported_parameter',
    );
  for (const [index, message] of (body.messages ?? []).entries()) {
    for (const key of Object.keys(message)) if (!messageKeys.has(key)) return additional(key, `messages.${index}`);
    if (!Array.isArray(message.content)) continue;
    for (const [position, part] of message.content.entries())
      for (const key of Object.keys(part))
        if (!partKeys.has(key)) return additional(key, `messages.${index}.content.${position}`);
  }
  for (const [index, tool] of (body.tools ?? []).entries())
    for (const key of Object.keys(tool)) if (!toolKeys.has(key)) return additional(key, `tools.${index}`);
  return undefined;
};

export const strictOpenAiRoutes = strictRoutes(openAiRoutes, checkOpenAiRequest);
