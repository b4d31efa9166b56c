import type { ChatCompletion, ChatToolCall } from '../../protocols/openai-chat/chat-completion-result.js';
import { singleChoiceCompletion } from '../assistant-choice.js';
import type { AnthropicWireMessage } from './anthropic-api.js';
import type { ThinkingBlock } from '../../protocols/openai-chat/thinking-blocks.js';
import { toChatUsage } from './anthropic-usage.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';

/**
 * An Anthropic message as an OpenAI chat completion: text, tool calls, thinking as reasoning_content
 * and, signed, as thinking_blocks.
 */
export const fromAnthropicResponse = (
  message: AnthropicWireMessage,
  created = Math.floor(Date.now() / 1000),
): ChatCompletion => {
  let text = '';
  let reasoning = '';
  const thinking: ThinkingBlock[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text' && 'text' in block) text += String(block.text);
    else if (block.type === 'thinking' && 'thinking' in block) {
      reasoning += String(block.thinking);
      const signature = typeof block.signature === 'string' ? block.signature : '';
      thinking.push({ type: 'thinking', thinking: String(block.thinking), ...(signature ? { signature } : {}) });
    } else if (block.type === 'redacted_thinking' && 'data' in block)
      thinking.push({ type: 'redacted_thinking', data: String(block.data) });
    else if (block.type === 'tool_use' && 'id' in block && 'name' in block) {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const completion = singleChoiceCompletion(
    {
      id: message.id,
      created,
      model: message.model ?? '',
      usage: message.usage ? toChatUsage(message.usage) : undefined,
    },
    { text, reasoning, toolCalls },
    mapAnthropicStopReason(message.stop_reason) ?? 'stop',
  );
  // The signed blocks ride beside reasoning_content, so that the next turn can send them back.
  if (thinking.length > 0) completion.choices[0]!.message.thinking_blocks = thinking;
  return completion;
};
