import type { ChatCompletionRequest, ChatMessage } from './chat-completion-request.js';

/**
 * The chat form as an OpenAI-compatible server takes it. The form carries two things of the gateway's
 * own for translated conversations: signed `thinking_blocks` on assistant turns and `cache_control`
 * marks on parts and tools. OpenAI refuses unknown properties in messages, so both are taken out
 * here; a request without them (the usual case) is returned as it was, uncopied.
 */

const hasCacheMark = (value: object): boolean => 'cache_control' in value;

const messageNeedsCleaning = (message: ChatMessage): boolean =>
  'thinking_blocks' in message || (Array.isArray(message.content) && message.content.some(hasCacheMark));

const withoutCacheMark = <Value extends object>(value: Value): Value => {
  if (!hasCacheMark(value)) return value;
  const { cache_control: _mark, ...rest } = value as Value & { cache_control?: unknown };
  return rest as Value;
};

const cleanMessage = (message: ChatMessage): ChatMessage => {
  if (!messageNeedsCleaning(message)) return message;
  const { thinking_blocks: _signed, ...rest } = message;
  return Array.isArray(rest.content) ? { ...rest, content: rest.content.map(withoutCacheMark) } : rest;
};

export const toOpenAIWireRequest = (request: ChatCompletionRequest): ChatCompletionRequest => {
  const messagesNeedCleaning = request.messages.some(messageNeedsCleaning);
  const toolsNeedCleaning = request.tools?.some(hasCacheMark) ?? false;
  if (!messagesNeedCleaning && !toolsNeedCleaning) return request;
  return {
    ...request,
    messages: messagesNeedCleaning ? request.messages.map(cleanMessage) : request.messages,
    ...(request.tools ? { tools: request.tools.map(withoutCacheMark) } : {}),
  };
};
