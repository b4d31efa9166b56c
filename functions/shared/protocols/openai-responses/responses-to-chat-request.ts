import { invalidValue } from '../../errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../openai-chat/chat-completion-request.js';
import type { ResponsesInputItem, ResponsesRequest } from './responses-request.js';
import { CUSTOM_INPUT, planTools, type ToolPlan } from './responses-tool-plan.js';
import type { ReplayLookup } from './item-replay.js';
import type { ThinkingBlock } from '../openai-chat/thinking-blocks.js';

/**
 * A Responses request as a chat completion request, for channels that only speak chat. Pure: throws a
 * 400 (naming the field) for what chat cannot express, such as stored items. Custom, namespaced and
 * client tool-search tools become functions (see responses-tool-plan.ts); hosted tools are left out.
 */

type Item = ResponsesInputItem & Record<string, unknown>;

const unsupported = (param: string, what: string) =>
  invalidValue(
    `${what} is not available for this model: its channel speaks chat completions, and the gateway translates only what chat can express.`,
    param,
  );

/**
 * A member that must be text when present: the items are checked loosely at the door, and a value of
 * another kind (an object whose `toString` is no function cannot even become text) is a 400 naming it.
 */
const textMember = (value: unknown, param: string): string => {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidValue(`Invalid value for '${param}': expected a string.`, param);
  return value;
};

/** A client's value quoted in a message: as JSON text, which any JSON value has. */
const quoted = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'nothing'));

const toChatPart = (part: Record<string, unknown>, param: string): ContentPart => {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: textMember(part.text, `${param}.text`) };
    case 'refusal':
      return { type: 'text', text: textMember(part.refusal, `${param}.refusal`) };
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
      throw unsupported(`${param}.type`, `A content part of type '${quoted(part.type)}'`);
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

/** A replayed call as the chat function call the plan names for its tool. */
const callFunction = (
  item: Item,
  type: 'function_call' | 'custom_tool_call' | 'tool_search_call',
  plan: ToolPlan,
  param: string,
): { name: string; arguments: string } => {
  const name = typeof item.name === 'string' ? item.name : '';
  const namespace = typeof item.namespace === 'string' && item.namespace ? item.namespace : undefined;
  switch (type) {
    case 'function_call':
      return {
        name: name && plan.chatName(namespace ? { kind: 'function', name, namespace } : { kind: 'function', name }),
        arguments: textMember(item.arguments, `${param}.arguments`),
      };
    case 'custom_tool_call':
      return {
        name: name && plan.chatName(namespace ? { kind: 'custom', name, namespace } : { kind: 'custom', name }),
        arguments: JSON.stringify({ [CUSTOM_INPUT]: textMember(item.input, `${param}.input`) }),
      };
    case 'tool_search_call':
      return { name: plan.chatName({ kind: 'tool_search' }), arguments: JSON.stringify(item.arguments ?? {}) };
    default: {
      const unexpected: never = type;
      throw new Error(`unexpected call item ${String(unexpected)}`);
    }
  }
};

/** A client tool search's answer for the model: the names it may now call (their definitions are in `tools`). */
const loadedToolsText = (loaded: unknown, plan: ToolPlan): string => {
  const names: string[] = [];
  const collect = (tool: { type?: unknown; name?: unknown; tools?: unknown }, namespace?: string) => {
    if (typeof tool?.name !== 'string') return;
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const member of tool.tools) collect(member as typeof tool, tool.name);
    } else if (tool.type === 'function' || tool.type === 'custom') {
      names.push(plan.chatName({ kind: tool.type, name: tool.name, ...(namespace ? { namespace } : {}) }));
    }
  };
  if (Array.isArray(loaded)) for (const tool of loaded) collect(tool as Parameters<typeof collect>[0]);
  return JSON.stringify({ loaded_tools: names });
};

/** Hosted tools' own items (web_search_call, …): the chat channel cannot run or replay them. */
const HOSTED_CALL_ITEMS = new Set([
  'web_search_call',
  'file_search_call',
  'image_generation_call',
  'code_interpreter_call',
  'mcp_list_tools',
  'mcp_call',
  'mcp_approval_request',
  'mcp_approval_response',
]);

/**
 * The chat messages of the input items; consecutive function calls become one assistant turn. With
 * `replay` (a conversation the gateway stored), signed thinking goes back on the assistant turn it
 * opened and a tool call gets its provider fields back.
 */
export const toChatMessages = (
  input: ResponsesRequest['input'],
  instructions: string | null | undefined,
  plan: ToolPlan = planTools({ input }),
  replay?: ReplayLookup,
): ChatMessage[] => {
  const messages: ChatMessage[] = [];
  // Signed thinking waiting for the assistant turn it belongs to.
  let thinking: ThinkingBlock[] | undefined;
  const takeThinking = (item: Item, message: ChatMessage) => {
    thinking = replay?.(item)?.thinking_blocks ?? thinking;
    if (thinking?.length && message.role === 'assistant' && !message.thinking_blocks) {
      message.thinking_blocks = thinking;
      thinking = undefined;
    }
  };
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
          const assistant: ChatMessage = { role: 'assistant', content: text };
          takeThinking(item, assistant);
          messages.push(assistant);
        } else {
          // Thinking not taken by its own turn belongs to no later one.
          thinking = undefined;
          messages.push({ role: item.role, content } as ChatMessage);
        }
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'tool_search_call': {
        if (type === 'tool_search_call' && item.execution !== 'client') return;
        const extra = replay?.(item)?.extra_content;
        const call = {
          id: textMember(item.call_id, `${param}.call_id`) || textMember(item.id, `${param}.id`),
          type: 'function' as const,
          function: callFunction(item, type, plan, param),
          ...(extra ? { extra_content: extra } : {}),
        };
        if (!call.id || !call.function.name)
          throw invalidValue(`A ${type} item needs 'call_id' and 'name'.`, `${param}.call_id`);
        const previous = messages.at(-1);
        // The calls of one turn follow its text (if any): chat holds them in that same assistant message.
        if (previous?.role === 'assistant') {
          previous.tool_calls = [...(previous.tool_calls ?? []), call];
          takeThinking(item, previous);
        } else {
          const assistant: ChatMessage = { role: 'assistant', content: null, tool_calls: [call] };
          takeThinking(item, assistant);
          messages.push(assistant);
        }
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'tool_search_output':
        if (type === 'tool_search_output' && item.execution !== 'client') return;
        if (typeof item.call_id !== 'string')
          throw invalidValue(`Missing required parameter: '${param}.call_id'.`, `${param}.call_id`);
        messages.push({
          role: 'tool',
          tool_call_id: item.call_id,
          content: type === 'tool_search_output' ? loadedToolsText(item.tools, plan) : outputText(item.output),
        });
        return;
      case 'reasoning':
        // Reasoning items replayed from an earlier answer (encrypted for OpenAI): other upstreams cannot
        // read them. Signed thinking the gateway kept for one waits for its assistant turn.
        thinking = replay?.(item)?.thinking_blocks ?? thinking;
        return;
      default:
        if (typeof type === 'string' && HOSTED_CALL_ITEMS.has(type)) return;
        throw unsupported(`${param}.type`, `An input item of type '${quoted(type)}'`);
    }
  });
  return messages;
};

const toChatToolChoice = (
  choice: ResponsesRequest['tool_choice'],
  plan: ToolPlan,
): ChatCompletionRequest['tool_choice'] => {
  if (choice === undefined || typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && choice.name) {
    const namespace = typeof choice.namespace === 'string' && choice.namespace ? choice.namespace : undefined;
    const origin = { kind: choice.type, name: choice.name, ...(namespace ? { namespace } : {}) } as const;
    return { type: 'function', function: { name: plan.chatName(origin) } };
  }
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
export const toChatRequest = (request: ResponsesRequest, replay?: ReplayLookup): ChatCompletionRequest => {
  const effort = request.reasoning?.effort;
  const plan = planTools(request);
  const messages = toChatMessages(request.input, request.instructions, plan, replay);
  const toolChoice = toChatToolChoice(request.tool_choice, plan);
  const chat: ChatCompletionRequest = {
    model: request.model,
    messages,
    ...(plan.tools.length ? { tools: plan.tools } : {}),
    // With every tool left out (hosted ones only), a choice among them means nothing to the channel.
    ...(toolChoice === undefined || (plan.tools.length === 0 && toolChoice !== 'none')
      ? {}
      : { tool_choice: toolChoice }),
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
