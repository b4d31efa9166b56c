import type { WireRoute } from './fake-upstream.js';
import { anthropicRoutes } from './anthropic-wire.js';

/**
 * Anthropic's Messages API as strict as Anthropic about what agent clients' translations get wrong:
 * unknown top-level fields, tool names and schemas, tool types it does not know, and tool results
 * that answer no tool_use of the turn before. Refused with Anthropic's own error text; anything it
 * accepts is answered by the lenient fake.
 */

const TOP_LEVEL_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stream',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'metadata',
  'thinking',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'output_config',
]);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

const refusalOf = (body: any): string | undefined => {
  for (const field of Object.keys(body ?? {})) {
    if (!TOP_LEVEL_FIELDS.has(field)) return `${field}: Extra inputs are not permitted`;
  }
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (tool.type !== undefined && tool.type !== 'custom') {
      return `tools.${index}: Input tag '${tool.type}' found using 'type' does not match any of the expected tags: 'bash_20250124', 'custom', 'text_editor_20250124', 'text_editor_20250429', 'text_editor_20250728', 'web_search_20250305'`;
    }
    if (!TOOL_NAME.test(String(tool.name))) {
      return `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    }
    if (tool.input_schema?.type !== 'object') return `tools.${index}.custom.input_schema.type: Field required`;
  }
  let offered = new Set<string>();
  for (const [index, message] of (body.messages ?? []).entries()) {
    const blocks: any[] = Array.isArray(message.content) ? message.content : [];
    if (message.role === 'user') {
      for (const [position, block] of blocks.entries()) {
        if (block.type === 'tool_result' && !offered.has(block.tool_use_id)) {
          return `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
    offered = new Set(blocks.filter((block) => block.type === 'tool_use').map((block) => block.id));
  }
  return undefined;
};

const strict =
  (route: WireRoute): WireRoute =>
  async (exchange) => {
    const refusal = refusalOf(exchange.request.body);
    if (!refusal) return route(exchange);
    exchange.response.writeHead(400, { 'content-type': 'application/json', 'request-id': 'req_strict' });
    exchange.response.end(
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refusal } }),
    );
  };

export const strictAnthropicToolRoutes: Record<string, WireRoute> = Object.fromEntries(
  Object.entries(anthropicRoutes).map(([route, handler]) => [
    route,
    route === 'POST /v1/messages' ? strict(handler) : handler,
  ]),
);
