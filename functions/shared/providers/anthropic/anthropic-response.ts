import type { ChatCompletion, ChatToolCall } from '../../schemas/chat-completion-result.js';
import type { AnthropicWireMessage } from './anthropic-api.js';
import { toChatUsage } from './anthropic-usage.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';

/** An Anthropic message as an OpenAI chat completion: text, tool calls, thinking as reasoning_content. */
export const fromAnthropicResponse = (message: AnthropicWireMessage, created = Math.floor(Date.now() / 1000)): ChatCompletion => {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text' && 'text' in block) text += String(block.text);
    else if (block.type === 'thinking' && 'thinking' in block) reasoning += String(block.thinking);
    else if (block.type === 'tool_use' && 'id' in block && 'name' in block) {
      toolCalls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model: message.model ?? '',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          refusal: null,
        },
        finish_reason: mapAnthropicStopReason(message.stop_reason) ?? 'stop',
        logprobs: null,
      },
    ],
    ...(message.usage ? { usage: toChatUsage(message.usage) } : {}),
  };
};
