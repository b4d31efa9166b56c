import { invalidValue } from '../../errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../openai-chat/chat-completion-request.js';
import type { ResponsesInputItem, ResponsesRequest } from './responses-request.js';

/**
 * A Responses request as a chat completion request, for channels that only speak chat. Pure: throws a
 * 400 (naming the field) for what chat cannot express, such as hosted tools or stored items.
 */

type Item = ResponsesInputItem & Record<string, unknown>;

const unsupported = (param: string, what: string) =>
  invalidValue(
    `${what} is not available for this model: its channel speaks chat completions, and the gateway translates only what chat can express.`,
    param,
  );

const toChatPart = (part: Record<string, unknown>, param: string): ContentPart => {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'refusal':
      return { type: 'text', text: String(part.refusal ?? '') };
    case 'input_image': {
      if (typeof part.image_url !== 'string') throw unsupported(`${param}.image_url`, 'An input_image by file_id');
      const detail =
        part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
      return { type: 'image_url', image_url: { url: part.image_url, ...(detail ? { detail } : {}) } };
    }
    case 'input_file':
      return {
        type: 'file',
        file: {
          ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
          ...(typeof part.file_data === 'string' ? { file_data: part.file_data } : {}),
          ...(typeof part.file_id === 'string' ? { file_id: part.file_id } : {}),
        },
      };
    default:
      throw unsupported(`${param}.type`, `A content part of type '${String(part.type)}'`);
  }
};

const messageContent = (content: unknown, param: string): string | ContentPart[] => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw invalidValue(`Invalid value for '${param}': expected a string or an array of content parts.`, param);
  return content.map((part, index) => toChatPart((part ?? {}) as Record<string, unknown>, `${param}[${index}]`));
};

const outputText = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : Array.isArray(output)
      ? output.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : JSON.stringify(output ?? '');

/** The chat messages of the input items; consecutive function calls become one assistant turn. */
export const toChatMessages = (
  input: ResponsesRequest['input'],
  instructions: string | null | undefined,
): ChatMessage[] => {
  const messages: ChatMessage[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  if (input === undefined) return messages;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  input.forEach((raw, index) => {
    const item = raw as Item;
    const param = `input[${index}]`;
    const type = item.type ?? (item.role ? 'message' : undefined);
    switch (type) {
      case 'message': {
        if (!item.role) throw invalidValue(`Missing required parameter: '${param}.role'.`, `${param}.role`);
        const content = messageContent(item.content, `${param}.content`);
        if (item.role === 'assistant') {
          const text =
            typeof content === 'string' ? content : content.map((part) => ('text' in part ? part.text : '')).join('');
          messages.push({ role: 'assistant', content: text });
        } else {
          messages.push({ role: item.role, content } as ChatMessage);
        }
        return;
      }
      case 'function_call': {
        const call = {
          id: String(item.call_id ?? item.id ?? ''),
          type: 'function' as const,
          function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '') },
        };
        if (!call.id || !call.function.name)
          throw invalidValue(`A function_call item needs 'call_id' and 'name'.`, `${param}.call_id`);
        const previous = messages.at(-1);
        // The calls of one turn follow its text (if any): chat holds them in that same assistant message.
        if (previous?.role === 'assistant') {
          previous.tool_calls = [...(previous.tool_calls ?? []), call];
        } else {
          messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        }
        return;
      }
      case 'function_call_output':
        if (typeof item.call_id !== 'string')
          throw invalidValue(`Missing required parameter: '${param}.call_id'.`, `${param}.call_id`);
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
        return;
      case 'reasoning':
        // Reasoning items replayed from an earlier answer: chat upstreams take no reasoning input.
        return;
      default:
        throw unsupported(`${param}.type`, `An input item of type '${String(type)}'`);
    }
  });
  return messages;
};

const toChatTools = (tools: ResponsesRequest['tools']): ChatCompletionRequest['tools'] =>
  tools?.map((tool, index) => {
    if (tool.type !== 'function') throw unsupported(`tools[${index}].type`, `The hosted tool '${tool.type}'`);
    const fn = tool as {
      name: string;
      description?: string | null;
      parameters?: Record<string, unknown> | null;
      strict?: boolean | null;
    };
    return {
      type: 'function' as const,
      function: {
        name: fn.name,
        ...(fn.description ? { description: fn.description } : {}),
        ...(fn.parameters ? { parameters: fn.parameters } : {}),
        ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
      },
    };
  });

const toChatToolChoice = (choice: ResponsesRequest['tool_choice']): ChatCompletionRequest['tool_choice'] => {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (choice.type === 'function' && choice.name) return { type: 'function', function: { name: choice.name } };
  throw unsupported('tool_choice', `A tool_choice of type '${choice.type}'`);
};

const toResponseFormat = (text: ResponsesRequest['text']): ChatCompletionRequest['response_format'] => {
  const format = text?.format as
    { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean } | undefined;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name ?? 'response',
        ...(format.schema ? { schema: format.schema } : {}),
        ...(format.strict === undefined ? {} : { strict: format.strict }),
      },
    };
  }
  throw unsupported('text.format.type', `A text format of type '${format.type}'`);
};

/** The whole request: messages, tools, sampling and limits; fields chat has no room for are dropped. */
export const toChatRequest = (request: ResponsesRequest): ChatCompletionRequest => {
  const effort = request.reasoning?.effort;
  const chat: ChatCompletionRequest = {
    model: request.model,
    messages: toChatMessages(request.input, request.instructions),
    ...(request.tools?.length ? { tools: toChatTools(request.tools) } : {}),
    ...(request.tool_choice === undefined ? {} : { tool_choice: toChatToolChoice(request.tool_choice) }),
    ...(request.max_output_tokens ? { max_tokens: request.max_output_tokens } : {}),
    ...(typeof request.temperature === 'number' ? { temperature: request.temperature } : {}),
    ...(typeof request.top_p === 'number' ? { top_p: request.top_p } : {}),
    ...(typeof request.parallel_tool_calls === 'boolean' ? { parallel_tool_calls: request.parallel_tool_calls } : {}),
    ...(effort && effort !== 'none' && effort !== 'xhigh'
      ? { reasoning_effort: effort }
      : effort === 'xhigh'
        ? { reasoning_effort: 'high' as const }
        : {}),
    ...(request.user ? { user: request.user } : {}),
    ...(request.stream ? { stream: true } : {}),
  };
  const responseFormat = toResponseFormat(request.text);
  if (responseFormat) chat.response_format = responseFormat;
  if (chat.messages.length === 0) throw invalidValue("Missing required parameter: 'input'.", 'input');
  return chat;
};
