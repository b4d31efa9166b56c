import type { AnthropicMessageParam } from '../../protocols/anthropic-messages/anthropic-messages-request.js';

const unsigned = (block: unknown): boolean =>
  block !== null &&
  typeof block === 'object' &&
  (block as { type?: unknown }).type === 'thinking' &&
  !(block as { signature?: unknown }).signature;

const opensWithThinking = (message: AnthropicMessageParam | undefined): boolean => {
  if (!message || !Array.isArray(message.content)) return true;
  if (!message.content.some((block) => block.type === 'tool_use')) return true;
  const first = message.content[0]?.type;
  return first === 'thinking' || first === 'redacted_thinking';
};

/**
 * A conversation as Anthropic can verify it. Thinking that carries no signature (an earlier turn
 * answered by another vendor through the gateway, whose reasoning has no Anthropic signature) is left
 * out rather than sent, since Anthropic refuses an unsigned thinking block; and when that leaves the
 * tool loop being continued without its opening thinking, thinking is turned off for this request,
 * which Anthropic otherwise refuses too. The body is returned as it was when nothing needs stripping,
 * which is the common case.
 */
export const withVerifiableThinking = <Body extends { messages: AnthropicMessageParam[]; thinking?: unknown }>(
  body: Body,
): Body => {
  const needsStripping = body.messages.some(
    (message) => message.role === 'assistant' && Array.isArray(message.content) && message.content.some(unsigned),
  );
  if (!needsStripping) return body;
  const messages = body.messages.map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    const content = message.content.filter((block) => !unsigned(block));
    return { ...message, content: content.length > 0 ? content : [{ type: 'text' as const, text: '' }] };
  });
  const lastAssistant = messages.findLast((message) => message.role === 'assistant');
  if (opensWithThinking(lastAssistant)) return { ...body, messages };
  const { thinking: _off, ...rest } = body;
  return { ...rest, messages } as Body;
};
