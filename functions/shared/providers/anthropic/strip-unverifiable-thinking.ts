import type { AnthropicMessageParam } from '../../protocols/anthropic-messages/anthropic-messages-request.js';

const unsigned = (block: unknown): boolean =>
  block !== null &&
  typeof block === 'object' &&
  (block as { type?: unknown }).type === 'thinking' &&
  !(block as { signature?: unknown }).signature;

/**
 * A conversation as Anthropic can verify it: thinking that carries no signature (an earlier turn
 * answered by another vendor through the gateway, whose reasoning has no Anthropic signature) is
 * left out rather than sent, since Anthropic refuses an unsigned thinking block. The messages are
 * returned as they were when nothing needs stripping, which is the common case.
 */
export const stripUnverifiableThinking = <Message extends AnthropicMessageParam>(
  messages: readonly Message[],
): readonly Message[] => {
  const needsStripping = messages.some(
    (message) => message.role === 'assistant' && Array.isArray(message.content) && message.content.some(unsigned),
  );
  if (!needsStripping) return messages;
  return messages.map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    const content = message.content.filter((block) => !unsigned(block));
    return { ...message, content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
  });
};
