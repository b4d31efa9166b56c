import { estimateLinesTokens } from '../../accounting/estimate-tokens.js';
import type { AnthropicCountTokensRequest } from './anthropic-messages-request.js';

/** What Anthropic charges for an image of the largest size it keeps (≈ 1.15 megapixels / 750). */
const IMAGE_TOKENS = 1600;

/** A local count of a Messages request's input: its text, tool calls and results, tool definitions, images. */
export const estimateAnthropicInput = (request: AnthropicCountTokensRequest): number => {
  const texts: string[] = [];
  let images = 0;
  if (typeof request.system === 'string') texts.push(request.system);
  else for (const block of request.system ?? []) texts.push(block.text);
  for (const message of request.messages) {
    if (typeof message.content === 'string') {
      texts.push(message.content);
      continue;
    }
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          texts.push(block.text);
          break;
        case 'image':
        case 'document':
          images += 1;
          break;
        case 'tool_use':
          texts.push(block.name, JSON.stringify(block.input ?? {}));
          break;
        case 'tool_result':
          if (typeof block.content === 'string') texts.push(block.content);
          else
            for (const part of block.content ?? []) {
              if (part.type === 'text') texts.push(part.text);
              else images += 1;
            }
          break;
        case 'thinking':
          texts.push(block.thinking);
          break;
        case 'redacted_thinking':
          break;
        default: {
          const unreachable: never = block;
          throw new Error(`unknown block ${String(unreachable)}`);
        }
      }
    }
  }
  if (request.tools?.length) texts.push(JSON.stringify(request.tools));
  return estimateLinesTokens(texts) + images * IMAGE_TOKENS;
};
