import { estimatedUsage, type TokenUsage } from './token-usage.js';

/** About four UTF-8 bytes a token; at least one for any text at all. */
const tokensOfBytes = (bytes: number): number => (bytes === 0 ? 0 : Math.max(1, Math.ceil(bytes / 4)));

/**
 * A tokenizer-free estimate for when an upstream reports no usage: about four UTF-8 bytes a token,
 * which is how BPE tokenizers average on English text and code. Records say when a count is estimated.
 */
export const estimateTokens = (text: string): number => tokensOfBytes(Buffer.byteLength(text, 'utf8'));

/** The UTF-8 size of `texts` joined by a one-byte separator (or none), counted without joining them. */
const joinedBytes = (texts: readonly string[], separatorBytes: 0 | 1): number => {
  let bytes = Math.max(0, texts.length - 1) * separatorBytes;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8');
  return bytes;
};

/** What `estimateTokens` makes of `texts` joined a line each, counted without joining them. */
export const estimateLinesTokens = (texts: readonly string[]): number => tokensOfBytes(joinedBytes(texts, 1));

/**
 * What `estimateTokens` makes of `texts` put end to end, counted without putting them together; a
 * surrogate pair split between two of them would count as its two halves (a JSON text, which starts
 * with an ASCII character, never completes one).
 */
export const estimateConcatenatedTokens = (...texts: readonly string[]): number => tokensOfBytes(joinedBytes(texts, 0));

/** The text of a chat message's content, whatever its shape. */
export const contentText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join(' ');
};

/** The UTF-8 size of `contentText(content)`, counted without building it. */
const contentBytes = (content: unknown): number => {
  if (typeof content === 'string') return Buffer.byteLength(content, 'utf8');
  if (!Array.isArray(content)) return 0;
  // One space between parts.
  let bytes = Math.max(0, content.length - 1);
  for (const part of content)
    if (part && typeof part === 'object' && 'text' in part) bytes += Buffer.byteLength(String(part.text), 'utf8');
  return bytes;
};

/**
 * The estimate of chat messages' content texts, a line each: what `estimateTokens` makes of them
 * joined, counted part by part. An agent's conversation is hundreds of kilobytes, estimated on every
 * request for admission; joining it first made a copy of all its text only to measure it.
 */
export const estimateMessageTokens = (messages: readonly { content?: unknown }[]): number => {
  // One newline between messages.
  let bytes = Math.max(0, messages.length - 1);
  for (const message of messages) bytes += contentBytes(message.content);
  return tokensOfBytes(bytes);
};

/** An estimate of a chat request's usage from its messages and the answer text the client saw. */
export const estimateChatUsage = (messages: readonly { content?: unknown }[], completionText: string): TokenUsage =>
  estimatedUsage(estimateMessageTokens(messages), estimateTokens(completionText));
