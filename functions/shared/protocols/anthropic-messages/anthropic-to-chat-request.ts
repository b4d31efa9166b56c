import type { AnthropicContentBlock, AnthropicMessagesRequest } from './anthropic-messages-request.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../openai-chat/chat-completion-request.js';
import { fitChatRequest, type ModelTraits } from '../openai-chat/fit-chat-request.js';
import type { ThinkingBlock } from '../openai-chat/thinking-blocks.js';
import { toChatResponseFormat } from './anthropic-output-format.js';

/**
 * An Anthropic Messages request → an OpenAI chat request, for channels that only speak chat. Fields
 * that need an Anthropic beta (context management, deferred tools, …) have no chat equivalent and are
 * left out; `cache_control` marks stay on the parts they mark, for channels that cache prompts.
 */

type ToolResultBlock = Extract<AnthropicContentBlock, { type: 'tool_result' }>;
type ImageBlock = Extract<AnthropicContentBlock, { type: 'image' }>;

const imagePart = (block: ImageBlock): ContentPart => ({
  type: 'image_url',
  image_url: {
    url:
      block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url,
  },
});

const toolResultText = (block: ToolResultBlock): string => {
  const text =
    typeof block.content === 'string'
      ? block.content
      : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  return block.is_error ? `Error: ${text}` : text;
};

type Effort = NonNullable<ChatCompletionRequest['reasoning_effort']>;

/** `output_config.effort` (Anthropic's effort beta) as an OpenAI effort; `max` has no higher rung than `high`. */
const efforts: Readonly<Record<string, Effort>> = { low: 'low', medium: 'medium', high: 'high', max: 'high' };

/**
 * Thinking back to OpenAI's reasoning efforts (the inverse of the Anthropic adapter's budget table);
 * adaptive thinking takes the client's effort, medium when it named none.
 */
const reasoningEffort = (request: AnthropicMessagesRequest): Effort | undefined => {
  const thinking = request.thinking;
  const effort = outputEffort(request);
  if (thinking?.type === 'adaptive') return effort ?? 'medium';
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  return effort ?? (budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high');
};

const outputEffort = (request: AnthropicMessagesRequest): Effort | undefined => {
  const config = request.output_config;
  if (config === null || typeof config !== 'object' || !('effort' in config)) return undefined;
  return typeof config.effort === 'string' ? efforts[config.effort] : undefined;
};

/** A mark such as `{type: "ephemeral", ttl: "1h"}`, kept on the chat part it marks. */
const cacheMark = (block: { cache_control?: { type: string } | null }) =>
  block.cache_control ? { cache_control: block.cache_control } : {};

const userMessages = (content: string | AnthropicContentBlock[]): ChatMessage[] => {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const messages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text, ...cacheMark(block) });
        break;
      case 'image':
        parts.push({ ...imagePart(block), ...cacheMark(block) });
        break;
      case 'tool_result':
        // OpenAI's tool messages must directly follow the assistant turn: they go before the user's text.
        messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block) });
        break;
      case 'document':
      case 'tool_use':
      case 'thinking':
      case 'redacted_thinking':
        break;
      default: {
        const unreachable: never = block;
        throw new Error(`unknown block ${String(unreachable)}`);
      }
    }
  }
  if (parts.length > 0) {
    const plain = parts.every((part) => part.type === 'text' && part.cache_control === undefined);
    messages.push({
      role: 'user',
      content: plain ? parts.map((part) => (part as { text: string }).text).join('\n') : parts,
    });
  }
  return messages;
};

const assistantMessage = (content: string | AnthropicContentBlock[]): ChatMessage => {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  let reasoning = '';
  const thinking: ThinkingBlock[] = [];
  const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
  for (const block of content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') {
      reasoning += block.thinking;
      thinking.push({
        type: 'thinking',
        thinking: block.thinking,
        ...(block.signature ? { signature: block.signature } : {}),
      });
    } else if (block.type === 'redacted_thinking') thinking.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  return {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(thinking.length ? { thinking_blocks: thinking } : {}),
  };
};

/** The system prompt: plain text, or text parts when some carry a cache mark that must survive. */
const systemMessage = (system: AnthropicMessagesRequest['system']): ChatMessage | undefined => {
  if (system === undefined || system === '' || (Array.isArray(system) && system.length === 0)) return undefined;
  if (typeof system === 'string') return { role: 'system', content: system };
  if (system.some((block) => block.cache_control)) {
    return {
      role: 'system',
      content: system.map((block) => ({ type: 'text' as const, text: block.text, ...cacheMark(block) })),
    };
  }
  const text = system.map((block) => block.text).join('\n');
  return text ? { role: 'system', content: text } : undefined;
};

const toolChoice = (choice: AnthropicMessagesRequest['tool_choice']): ChatCompletionRequest['tool_choice'] => {
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default: {
      const unreachable: never = choice;
      throw new Error(`unknown tool choice ${String(unreachable)}`);
    }
  }
};

export const anthropicToChatRequest = (
  request: AnthropicMessagesRequest,
  traits: ModelTraits = { reasoning: false },
): ChatCompletionRequest => {
  const messages: ChatMessage[] = [];
  const system = systemMessage(request.system);
  if (system) messages.push(system);
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message.content));
    else if (message.role === 'assistant') messages.push(assistantMessage(message.content));
    else {
      // A system message in the conversation stays where it was said: chat takes system messages anywhere.
      const instruction = systemMessage(message.content);
      if (instruction) messages.push(instruction);
    }
  }
  // Server tools (web search, code execution, tool search, …) exist only at Anthropic: custom tools
  // are translated, and a deferred tool (`defer_loading`) is simply offered.
  const tools = (request.tools ?? [])
    .filter((tool) => tool.input_schema !== undefined)
    .map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
      ...cacheMark(tool as { cache_control?: { type: string } | null }),
    }));
  const choice = tools.length ? toolChoice(request.tool_choice) : undefined;
  const effort = reasoningEffort(request);
  const responseFormat = toChatResponseFormat(request);
  const parallel =
    request.tool_choice &&
    'disable_parallel_tool_use' in request.tool_choice &&
    request.tool_choice.disable_parallel_tool_use;
  return fitChatRequest(
    {
      model: request.model,
      messages,
      max_tokens: request.max_tokens,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
      ...(request.stop_sequences?.length ? { stop: request.stop_sequences } : {}),
      ...(tools.length ? { tools } : {}),
      ...(choice ? { tool_choice: choice } : {}),
      ...(parallel && tools.length ? { parallel_tool_calls: false } : {}),
      ...(effort ? { reasoning_effort: effort } : {}),
      ...(responseFormat ? { response_format: responseFormat } : {}),
      ...(request.metadata?.user_id ? { user: request.metadata.user_id } : {}),
      ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    },
    traits,
  );
};
