import { SKIPPED_THOUGHT_SIGNATURE, thoughtSignatureOf } from '../../protocols/openai-chat/thought-signature.js';
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
} from '../../protocols/openai-chat/chat-completion-request.js';
import { cleanGeminiSchema } from './clean-gemini-schema.js';
import { parseNestedJson } from '../../http/json-depth.js';

/** OpenAI chat request → Gemini generateContent request: pure, so it is tested on plain data. */

type GeminiRequestPart = Record<string, unknown>;
interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiRequestPart[];
}

/** Thinking budgets for OpenAI's reasoning efforts (`minimal` turns thinking off where a model allows). */
export const geminiThinkingBudgets = { minimal: 0, low: 1024, medium: 8192, high: 24_576 } as const;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
};

const guessMimeType = (url: string): string => {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return (extension && MIME_BY_EXTENSION[extension]) || 'image/jpeg';
};

/** A media URL as inline data (a base64 data URL) or as a file reference. */
export const toGeminiMedia = (url: string): GeminiRequestPart => {
  const data = DATA_URL.exec(url);
  return data
    ? { inlineData: { mimeType: data[1]!, data: data[2]! } }
    : { fileData: { mimeType: guessMimeType(url), fileUri: url } };
};

const partToGemini = (part: ContentPart): GeminiRequestPart | undefined => {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return toGeminiMedia(part.image_url.url);
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    case 'file':
      return part.file.file_data ? toGeminiMedia(part.file.file_data) : undefined;
    case 'video_url':
      return toGeminiMedia(part.video_url.url);
    case 'refusal':
      return { text: part.refusal };
    default: {
      const unreachable: never = part;
      throw new Error(`unknown content part ${String(unreachable)}`);
    }
  }
};

const contentParts = (content: ChatMessage['content']): GeminiRequestPart[] => {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map(partToGemini).filter((part): part is GeminiRequestPart => part !== undefined);
};

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

const parseObject = (text: string): Record<string, unknown> => {
  try {
    const parsed: unknown = parseNestedJson(text || '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    return { content: text };
  }
};

/** Messages as Gemini contents: assistant → model, tool results as functionResponse parts of a user turn. */
export const convertToGeminiContents = (messages: readonly ChatMessage[]) => {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: GeminiContent['role'], parts: GeminiRequestPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    // Parallel function responses belong in one turn; Gemini also wants roles to alternate.
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        break;
      case 'user':
        push('user', contentParts(message.content));
        break;
      case 'assistant': {
        const parts = contentParts(message.content);
        (message.tool_calls ?? []).forEach((call, index) => {
          toolNames.set(call.id, call.function.name);
          // Gemini signs the first call of a step; a step whose signature was lost gets the stand-in.
          const signature = thoughtSignatureOf(call) ?? (index === 0 ? SKIPPED_THOUGHT_SIGNATURE : undefined);
          parts.push({
            functionCall: { id: call.id, name: call.function.name, args: parseObject(call.function.arguments) },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        push('model', parts);
        break;
      }
      case 'tool': {
        const text = textOf(message.content);
        const parsed = parseObject(text);
        const name = toolNames.get(message.tool_call_id!) ?? message.name ?? 'tool';
        // Gemini wants an object: a JSON object result goes as it is, anything else under `content`.
        const response = 'content' in parsed && Object.keys(parsed).length === 1 ? { content: text } : parsed;
        push('user', [{ functionResponse: { id: message.tool_call_id, name, response } }]);
        break;
      }
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  return { systemText: system.filter((text) => text !== '').join('\n\n'), contents };
};

const toolConfig = (choice: ChatCompletionRequest['tool_choice']) => {
  if (choice === undefined) return undefined;
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
};

const responseFormat = (format: ChatCompletionRequest['response_format']) => {
  switch (format?.type) {
    case undefined:
    case 'text':
      return {};
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema':
      return {
        responseMimeType: 'application/json',
        ...(format.json_schema.schema ? { responseSchema: cleanGeminiSchema(format.json_schema.schema) } : {}),
      };
    default: {
      const unreachable: never = format;
      throw new Error(`unknown response format ${String(unreachable)}`);
    }
  }
};

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** The whole generateContent body for a chat request (the model goes in the URL). */
export const toGeminiRequest = (request: ChatCompletionRequest): Record<string, unknown> => {
  const { systemText, contents } = convertToGeminiContents(request.messages);
  const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  const effort = request.reasoning_effort;
  const generationConfig = {
    ...(present(request.temperature) ? { temperature: request.temperature } : {}),
    ...(present(request.top_p) ? { topP: request.top_p } : {}),
    ...(present(maxTokens) ? { maxOutputTokens: maxTokens } : {}),
    ...(stop?.length ? { stopSequences: stop } : {}),
    ...(present(request.n) && request.n > 1 ? { candidateCount: request.n } : {}),
    ...(present(request.presence_penalty) ? { presencePenalty: request.presence_penalty } : {}),
    ...(present(request.frequency_penalty) ? { frequencyPenalty: request.frequency_penalty } : {}),
    ...(present(request.seed) ? { seed: request.seed } : {}),
    ...responseFormat(request.response_format),
    ...(present(effort)
      ? { thinkingConfig: { thinkingBudget: geminiThinkingBudgets[effort], includeThoughts: effort !== 'minimal' } }
      : {}),
  };
  const declarations = request.tools?.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    ...(tool.function.parameters &&
    Object.keys((tool.function.parameters.properties as object | undefined) ?? {}).length > 0
      ? { parameters: cleanGeminiSchema(tool.function.parameters) }
      : {}),
  }));
  const config = declarations?.length ? toolConfig(request.tool_choice) : undefined;
  return {
    contents,
    ...(systemText ? { systemInstruction: { parts: [{ text: systemText }] } } : {}),
    ...(declarations?.length ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(config ? { toolConfig: config } : {}),
    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
  };
};
