import { estimatedUsage, type TokenUsage } from './token-usage.js';

/**
 * A tokenizer-free estimate for when an upstream reports no usage: about four UTF-8 bytes a token,
 * which is how BPE tokenizers average on English text and code. Records say when a count is estimated.
 */
export const estimateTokens = (text: string): number =>
  text.length === 0 ? 0 : Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));

/** The text of a chat message's content, whatever its shape. */
export const contentText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join(' ');
};

/** An estimate of a chat request's usage from its messages and the answer text the client saw. */
export const estimateChatUsage = (messages: readonly { content?: unknown }[], completionText: string): TokenUsage =>
  estimatedUsage(
    estimateTokens(messages.map((message) => contentText(message.content)).join('\n')),
    estimateTokens(completionText),
  );
