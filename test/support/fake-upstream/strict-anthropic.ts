import { anthropicRoutes } from './anthropic-wire.js';
import type { ReceivedRequest } from './fake-upstream.js';
import { strictRoutes, type Refusal } from './strict-wire.js';

/**
 * Anthropic's Messages API as strict as the real one on what agent clients send: the version header,
 * beta names, body fields that only exist under a beta, signed thinking, and thinking's own rules.
 * Refusals carry Anthropic's envelope and its error texts.
 */

/** Betas this fake knows; Anthropic refuses any other name. */
const knownBetas = new Set([
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
  'context-management-2025-06-27',
  'context-1m-2025-08-07',
  'advanced-tool-use-2025-11-20',
  'effort-2025-11-24',
  'prompt-caching-scope-2026-01-05',
  'structured-outputs-2025-11-13',
  // Sent by Claude Code 2.1.328 (recorded).
  'mid-conversation-tool-changes-2026-07-01',
  'thinking-token-count-2026-05-13',
]);

const invalid = (message: string): Refusal => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});

const betasOf = (request: ReceivedRequest): string[] =>
  String(request.headers['anthropic-beta'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');

const checkBlocks = (body: any): Refusal | undefined => {
  const messages: any[] = body.messages ?? [];
  for (const [index, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [position, block] of message.content.entries()) {
      if (block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === ''))
        return invalid(`messages.${index}.content.${position}.thinking.signature: Field required`);
      if (block.type === 'thinking' && block.signature !== 'sig_fake')
        return invalid(`messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`);
    }
  }
  if (body.thinking?.type !== 'enabled' && body.thinking?.type !== 'adaptive') return undefined;
  if (body.temperature !== undefined && body.temperature !== 1)
    return invalid('`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.');
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const turn = messages[lastAssistant];
  if (turn && Array.isArray(turn.content) && turn.content.some((block: any) => block.type === 'tool_use')) {
    const first = turn.content[0]?.type;
    if (first !== 'thinking' && first !== 'redacted_thinking')
      return invalid(
        `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. ` +
          'When `thinking` is enabled, a final `assistant` message must start with a thinking block ' +
          '(preceeding the lastmost set of `tool_use` and `tool_result` blocks).',
      );
  }
  return undefined;
};

export const checkAnthropicRequest = (request: ReceivedRequest): Refusal | undefined => {
  if (!request.headers['x-api-key'])
    return {
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    };
  if (!request.headers['anthropic-version']) return invalid('anthropic-version: header is required');
  const betas = betasOf(request);
  const unknown = betas.filter((beta) => !knownBetas.has(beta));
  if (unknown.length > 0)
    return invalid(
      `Unexpected value(s) \`${unknown.join(', ')}\` for the \`anthropic-beta\` header. ` +
        'Please consult our documentation at docs.anthropic.com or try again without the header.',
    );
  const body = request.body ?? {};
  if (request.path.endsWith('/messages') && typeof body.max_tokens !== 'number')
    return invalid('max_tokens: Field required');
  if (body.context_management !== undefined && !betas.includes('context-management-2025-06-27'))
    return invalid('context_management: Extra inputs are not permitted');
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (tool.defer_loading !== undefined && !betas.includes('advanced-tool-use-2025-11-20'))
      return invalid(`tools.${index}.custom.defer_loading: Extra inputs are not permitted`);
  }
  return checkBlocks(body);
};

export const strictAnthropicRoutes = strictRoutes(anthropicRoutes, checkAnthropicRequest);
