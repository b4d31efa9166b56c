import { createHash } from 'node:crypto';
import type { ChatCompletionRequest } from '../openai-chat/chat-completion-request.js';
import type { ResponsesRequest } from './responses-request.js';
import { parseJson } from '../../http/parse-json.js';

/**
 * Responses tools that are not plain functions, as chat functions, and the way back. Agent clients
 * (Codex above all) always send `custom` tools (free-form text input, e.g. apply_patch), `namespace`
 * groups of functions, a client-run `tool_search` and hosted tools such as `web_search`. A chat-only
 * channel sees each client-run tool as one function; hosted tools, which only OpenAI's servers run,
 * are left out. The plan is a pure function of the request, so the request and answer translators
 * build the same one independently.
 */

export type ToolOrigin =
  /** A function tool, possibly one of a namespace's. */
  | { readonly kind: 'function'; readonly name: string; readonly namespace?: string }
  /** A custom tool: its chat function takes one string argument, `input`. */
  | { readonly kind: 'custom'; readonly name: string; readonly namespace?: string }
  /** The client-run tool search: its call carries an arguments object, its output loaded tools. */
  | { readonly kind: 'tool_search' };

type ChatTool = NonNullable<ChatCompletionRequest['tools']>[number];

export interface ToolPlan {
  /** The chat tools, in request order (tools loaded by earlier tool searches last). */
  readonly tools: ChatTool[];
  /** What a chat function name stands for; a name missing here is passed on as a plain function. */
  readonly origins: ReadonlyMap<string, ToolOrigin>;
  /** The chat function name of a client tool. */
  chatName(origin: ToolOrigin): string;
}

/** The argument a custom tool's chat function takes. */
export const CUSTOM_INPUT = 'input';

const NAME_LIMIT = 64;
const NAMESPACE_JOINER = '__';
// Every channel type accepts these characters in a function name (Anthropic and Bedrock refuse '.').
const unsafeCharacters = /[^A-Za-z0-9_-]/g;

const keyOf = (origin: ToolOrigin): string =>
  origin.kind === 'tool_search' ? 'tool_search' : `${origin.kind}:${origin.namespace ?? ''}:${origin.name}`;

/** A name within every channel's limits; one shortened keeps a digest of the whole so it stays distinct. */
const safeName = (wanted: string): string => {
  const clean = wanted.replace(unsafeCharacters, '_') || 'tool';
  if (clean.length <= NAME_LIMIT) return clean;
  const digest = createHash('sha256').update(wanted).digest('hex').slice(0, 8);
  return `${clean.slice(0, NAME_LIMIT - digest.length - 1)}_${digest}`;
};

const joinedName = (origin: ToolOrigin): string =>
  origin.kind === 'tool_search'
    ? 'tool_search'
    : origin.namespace
      ? `${origin.namespace}${NAMESPACE_JOINER}${origin.name}`
      : origin.name;

type RawTool = { type?: unknown; name?: unknown; [field: string]: unknown };

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const customDescription = (tool: RawTool): string => {
  const format = asRecord(tool.format);
  const lines = [typeof tool.description === 'string' ? tool.description : ''];
  if (format?.type === 'grammar' && typeof format.definition === 'string') {
    lines.push(
      `Pass the tool's whole input as the string argument '${CUSTOM_INPUT}'; it must match this ${String(format.syntax ?? '')} grammar:`,
      format.definition,
    );
  } else {
    lines.push(`Pass the tool's whole input as the string argument '${CUSTOM_INPUT}'.`);
  }
  return lines.filter(Boolean).join('\n');
};

const customParameters = {
  type: 'object',
  properties: { [CUSTOM_INPUT]: { type: 'string', description: 'The raw input of the tool.' } },
  required: [CUSTOM_INPUT],
  additionalProperties: false,
};

const emptyParameters = { type: 'object', properties: {} };

/** The plan for one request: its tools plus those loaded by client tool searches replayed in `input`. */
export const planTools = (request: Pick<ResponsesRequest, 'tools' | 'input'>): ToolPlan => {
  const tools: ChatTool[] = [];
  const origins = new Map<string, ToolOrigin>();
  const names = new Map<string, string>();

  const chatName = (origin: ToolOrigin): string => {
    const known = names.get(keyOf(origin));
    if (known) return known;
    const base = safeName(joinedName(origin));
    let name = base;
    for (let suffix = 2; origins.has(name); suffix += 1) name = safeName(`${base}_${suffix}`);
    names.set(keyOf(origin), name);
    origins.set(name, origin);
    return name;
  };

  const add = (origin: ToolOrigin, definition: Omit<ChatTool['function'], 'name'>) => {
    if (names.has(keyOf(origin))) return;
    tools.push({ type: 'function', function: { name: chatName(origin), ...definition } });
  };

  const addTool = (tool: RawTool, namespace?: string) => {
    const name = typeof tool.name === 'string' ? tool.name : '';
    switch (tool.type) {
      case 'function':
        if (!name) return;
        add(namespace ? { kind: 'function', name, namespace } : { kind: 'function', name }, {
          ...(typeof tool.description === 'string' && tool.description ? { description: tool.description } : {}),
          parameters: asRecord(tool.parameters) ?? emptyParameters,
          ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
        });
        return;
      case 'custom':
        if (!name) return;
        add(namespace ? { kind: 'custom', name, namespace } : { kind: 'custom', name }, {
          description: customDescription(tool),
          parameters: customParameters,
        });
        return;
      case 'namespace':
        if (!name || !Array.isArray(tool.tools)) return;
        for (const member of tool.tools) addTool((asRecord(member) ?? {}) as RawTool, name);
        return;
      case 'tool_search':
        // A server-run tool search exists only on OpenAI's side; a client-run one is the client's function.
        if (tool.execution !== 'client') return;
        add(
          { kind: 'tool_search' },
          {
            ...(typeof tool.description === 'string' && tool.description ? { description: tool.description } : {}),
            parameters: asRecord(tool.parameters) ?? emptyParameters,
          },
        );
        return;
      default:
        // Hosted tools (web_search, file_search, image_generation, …) run on OpenAI's servers only.
        return;
    }
  };

  for (const tool of request.tools ?? []) addTool(tool as RawTool);
  if (Array.isArray(request.input)) {
    for (const item of request.input) {
      const loaded = (item as { type?: unknown; tools?: unknown }).tools;
      if (item.type === 'tool_search_output' && Array.isArray(loaded)) {
        for (const tool of loaded) addTool((asRecord(tool) ?? {}) as RawTool);
      }
    }
  }
  return { tools, origins, chatName };
};

/** The text a custom tool's call carries: its `input` argument, or the raw arguments when they are not JSON. */
export const customInputOf = (chatArguments: string): string => {
  try {
    const parsed = asRecord(parseJson(chatArguments));
    if (typeof parsed?.[CUSTOM_INPUT] === 'string') return parsed[CUSTOM_INPUT];
  } catch {
    // A model may answer with the bare text; that text is the input.
  }
  return chatArguments;
};

/** The arguments object of a tool search call (the Responses wire carries an object, chat a JSON string). */
export const toolSearchArgumentsOf = (chatArguments: string): unknown => {
  try {
    return parseJson(chatArguments) as unknown;
  } catch {
    return { query: chatArguments };
  }
};
