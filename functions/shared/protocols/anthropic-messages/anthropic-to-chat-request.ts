import type { AnthropicContentBlock, AnthropicMessagesRequest } from './anthropic-messages-request.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../openai-chat/chat-completion-request.js';

/** An Anthropic Messages request → an OpenAI chat request, for channels that only speak chat. */

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

/** Thinking budgets back to OpenAI's reasoning efforts (the inverse of the Anthropic adapter's table). */
const reasoningEffort = (thinking: AnthropicMessagesRequest['thinking']): ChatCompletionRequest['reasoning_effort'] => {
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
};

const userMessages = (content: string | AnthropicContentBlock[]): ChatMessage[] => {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const messages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push(imagePart(block));
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
    messages.push({
      role: 'user',
      content: parts.every((part) => part.type === 'text')
        ? parts.map((part) => (part as { text: string }).text).join('\n')
        : parts,
    });
  }
  return messages;
};

const assistantMessage = (content: string | AnthropicContentBlock[]): ChatMessage => {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  let reasoning = '';
  const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
  for (const block of content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') reasoning += block.thinking;
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
  };
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

export const anthropicToChatRequest = (request: AnthropicMessagesRequest): ChatCompletionRequest => {
  const messages: ChatMessage[] = [];
  const system =
    typeof request.system === 'string' ? request.system : (request.system ?? []).map((block) => block.text).join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message.content));
    else messages.push(assistantMessage(message.content));
  }
  // Server tools (web search, code execution, …) exist only at Anthropic: custom tools are translated.
  const tools = (request.tools ?? [])
    .filter((tool) => tool.input_schema !== undefined)
    .map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    }));
  const choice = tools.length ? toolChoice(request.tool_choice) : undefined;
  const effort = reasoningEffort(request.thinking);
  const parallel =
    request.tool_choice &&
    'disable_parallel_tool_use' in request.tool_choice &&
    request.tool_choice.disable_parallel_tool_use;
  return {
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
    ...(request.metadata?.user_id ? { user: request.metadata.user_id } : {}),
    ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
};
