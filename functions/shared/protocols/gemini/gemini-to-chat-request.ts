import { thoughtSignatureField } from '../openai-chat/thought-signature.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../openai-chat/chat-completion-request.js';
import type { GeminiContent, GeminiGenerateContentRequest } from './gemini-generate-content-request.js';
import { nullPrototypeRecord } from '../../http/null-prototype.js';

/** A Gemini generateContent request → an OpenAI chat request, for serving Gemini-style clients by any channel. */

/** Gemini's OpenAPI-style schema (`type: "OBJECT"`, `nullable`) as the JSON schema OpenAI-style tools take. */
export const toJsonSchema = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const converted = nullPrototypeRecord<unknown>();
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toLowerCase();
    else if (key === 'properties' && value && typeof value === 'object') {
      converted.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, toJsonSchema(property)]),
      );
    } else if (key === 'items' || key === 'anyOf') converted[key] = toJsonSchema(value);
    else converted[key] = value;
  }
  if ((schema as { nullable?: unknown }).nullable === true && typeof converted.type === 'string')
    converted.type = [converted.type, 'null'];
  return converted;
};

const contentText = (content: GeminiContent | string | undefined): string =>
  content === undefined
    ? ''
    : typeof content === 'string'
      ? content
      : content.parts.map((part) => part.text ?? '').join('');

const mediaUrl = (part: GeminiContent['parts'][number]): string | undefined => {
  if (part.inlineData) return `data:${part.inlineData.mimeType};base64,${part.inlineData.data}`;
  if (part.fileData) return part.fileData.fileUri;
  return undefined;
};

/** Tool call ids for Gemini's calls, which are matched to their responses by name when they have no id. */
const createCallIds = () => {
  let count = 0;
  const pending = new Map<string, string[]>();
  return {
    call(name: string, id: string | undefined): string {
      const callId = id ?? `call_${count++}_${name}`;
      pending.set(name, [...(pending.get(name) ?? []), callId]);
      return callId;
    },
    response(name: string, id: string | undefined): string {
      const queue = pending.get(name) ?? [];
      if (id) {
        pending.set(
          name,
          queue.filter((candidate) => candidate !== id),
        );
        return id;
      }
      return queue.shift() ?? `call_${count++}_${name}`;
    },
  };
};

const toolChoice = (config: GeminiGenerateContentRequest['toolConfig']): ChatCompletionRequest['tool_choice'] => {
  const calling = config?.functionCallingConfig;
  if (!calling) return undefined;
  switch (calling.mode) {
    case undefined:
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return 'auto';
    case 'NONE':
      return 'none';
    case 'ANY':
    case 'VALIDATED': {
      const names = calling.allowedFunctionNames ?? [];
      return names.length === 1 ? { type: 'function', function: { name: names[0]! } } : 'required';
    }
    default: {
      const unreachable: never = calling.mode;
      throw new Error(`unknown function calling mode ${String(unreachable)}`);
    }
  }
};

const responseFormat = (
  config: GeminiGenerateContentRequest['generationConfig'],
): ChatCompletionRequest['response_format'] => {
  if (config?.responseMimeType !== 'application/json') return undefined;
  const schema =
    config.responseJsonSchema ??
    (config.responseSchema ? (toJsonSchema(config.responseSchema) as Record<string, unknown>) : undefined);
  return schema ? { type: 'json_schema', json_schema: { name: 'response', schema } } : { type: 'json_object' };
};

const reasoningEffort = (
  config: GeminiGenerateContentRequest['generationConfig'],
): ChatCompletionRequest['reasoning_effort'] => {
  const budget = config?.thinkingConfig?.thinkingBudget;
  if (budget === undefined || budget < 0) return undefined;
  return budget === 0 ? 'minimal' : budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
};

export const geminiToChatRequest = (
  request: GeminiGenerateContentRequest,
  model: string,
  stream: boolean,
): ChatCompletionRequest => {
  const messages: ChatMessage[] = [];
  const system = contentText(request.systemInstruction);
  if (system) messages.push({ role: 'system', content: system });
  const ids = createCallIds();
  for (const content of request.contents) {
    if (content.role === 'model') {
      let text = '';
      let reasoning = '';
      const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
      for (const part of content.parts) {
        if (part.functionCall) {
          const id = ids.call(part.functionCall.name, part.functionCall.id);
          toolCalls.push({
            id,
            type: 'function',
            function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
            ...thoughtSignatureField(part.thoughtSignature),
          });
        } else if (part.text !== undefined) {
          if (part.thought) reasoning += part.text;
          else text += part.text;
        }
      }
      messages.push({
        role: 'assistant',
        content: text === '' && toolCalls.length ? null : text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        ...(reasoning ? { reasoning_content: reasoning } : {}),
      });
      continue;
    }
    const parts: ContentPart[] = [];
    for (const part of content.parts) {
      if (part.functionResponse) {
        const { name, id, response } = part.functionResponse;
        messages.push({ role: 'tool', tool_call_id: ids.response(name, id), content: JSON.stringify(response ?? {}) });
        continue;
      }
      if (part.text !== undefined && !part.thought) parts.push({ type: 'text', text: part.text });
      const url = mediaUrl(part);
      if (url) parts.push({ type: 'image_url', image_url: { url } });
    }
    if (parts.length > 0) {
      messages.push({
        role: 'user',
        content: parts.every((part) => part.type === 'text')
          ? parts.map((part) => (part as { text: string }).text).join('')
          : parts,
      });
    }
  }
  const tools = (request.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => ({
      type: 'function' as const,
      function: {
        name: declaration.name,
        ...(declaration.description ? { description: declaration.description } : {}),
        parameters: (declaration.parametersJsonSchema ??
          (declaration.parameters
            ? toJsonSchema(declaration.parameters)
            : { type: 'object', properties: {} })) as Record<string, unknown>,
      },
    })),
  );
  const config = request.generationConfig;
  const choice = tools.length ? toolChoice(request.toolConfig) : undefined;
  const format = responseFormat(config);
  const effort = reasoningEffort(config);
  return {
    model,
    messages,
    ...(config?.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config?.topP !== undefined ? { top_p: config.topP } : {}),
    ...(config?.maxOutputTokens !== undefined ? { max_tokens: config.maxOutputTokens } : {}),
    ...(config?.stopSequences?.length ? { stop: config.stopSequences } : {}),
    ...(config?.candidateCount !== undefined && config.candidateCount > 1 ? { n: config.candidateCount } : {}),
    ...(config?.presencePenalty !== undefined ? { presence_penalty: config.presencePenalty } : {}),
    ...(config?.frequencyPenalty !== undefined ? { frequency_penalty: config.frequencyPenalty } : {}),
    ...(config?.seed !== undefined ? { seed: config.seed } : {}),
    ...(tools.length ? { tools } : {}),
    ...(choice ? { tool_choice: choice } : {}),
    ...(format ? { response_format: format } : {}),
    ...(effort ? { reasoning_effort: effort } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
};
