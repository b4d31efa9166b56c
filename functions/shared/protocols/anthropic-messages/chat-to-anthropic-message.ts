import { toAnthropicStopReason } from './anthropic-stop-reason.js';
import { parseToolInput } from '../openai-chat/tool-arguments.js';
import type { AnthropicMessage, AnthropicResponseBlock, AnthropicUsage } from './anthropic-messages-result.js';
import type { ChatCompletion, ChatUsage } from '../openai-chat/chat-completion-result.js';
import { readThinkingBlocks } from '../openai-chat/thinking-blocks.js';

/** OpenAI usage as Anthropic's: cached input is counted apart from `input_tokens`. */
export const toAnthropicUsage = (usage: ChatUsage | null | undefined): AnthropicUsage => {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = Number(
    (usage?.prompt_tokens_details as { cache_write_tokens?: unknown } | null | undefined)?.cache_write_tokens ?? 0,
  );
  const cacheWrites = Number.isFinite(written) && written > 0 ? written : 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached - cacheWrites),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: cacheWrites,
    cache_read_input_tokens: cached,
  };
};

/** The signed blocks a chat answer carries, as Anthropic writes them (a thinking block always has a signature field). */
const thinkingBlocks = (value: unknown): AnthropicResponseBlock[] =>
  readThinkingBlocks(value).map((block): AnthropicResponseBlock =>
    block.type === 'thinking'
      ? { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }
      : { type: 'redacted_thinking', data: block.data },
  );

export const anthropicMessageId = (upstreamId: string) =>
  upstreamId.startsWith('msg_') ? upstreamId : `msg_${upstreamId.replace(/^chatcmpl-/, '')}`;

/** An OpenAI chat completion as an Anthropic message (its first choice). */
export const chatToAnthropicMessage = (completion: ChatCompletion, model: string): AnthropicMessage => {
  const choice = completion.choices[0];
  const content: AnthropicResponseBlock[] = [];
  const message = choice?.message;
  const signed = thinkingBlocks(message?.thinking_blocks);
  if (signed.length > 0) content.push(...signed);
  else if (message?.reasoning_content)
    content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  if (typeof message?.content === 'string' && message.content !== '')
    content.push({ type: 'text', text: message.content });
  for (const call of message?.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    });
  }
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return {
    id: anthropicMessageId(completion.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: toAnthropicStopReason(choice?.finish_reason) ?? 'end_turn',
    stop_sequence: null,
    usage: toAnthropicUsage(completion.usage),
  };
};
