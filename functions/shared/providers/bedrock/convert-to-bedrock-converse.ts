import type {
  ContentBlock,
  ConverseCommandInput,
  InferenceConfiguration,
  SystemContentBlock,
  Tool,
  ToolChoice,
  ToolResultContentBlock,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { alternatingTurns } from '../alternating-turns.js';
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
} from '../../protocols/openai-chat/chat-completion-request.js';
import { toBedrockFile, toBedrockImage } from './bedrock-media.js';
import { NumericValue } from '@smithy/core/serde';
import { parseNestedJson } from '../../http/json-depth.js';
import { DEFAULT_MAX_TOKENS, thinkingBudgets } from '../claude-thinking.js';
import { bedrockChannelBetas } from './bedrock-betas.js';
import { verifiableThinking } from '../../protocols/openai-chat/thinking-blocks.js';

/** OpenAI chat request → Bedrock Converse input: pure, so it is tested on plain data. */

/** What Converse and ConverseStream both take (they differ only in their guardrail settings). */
export type BedrockConverseInput = Omit<ConverseCommandInput, 'guardrailConfig'>;

/** JSON values as the SDK's document type, which a plain `unknown` does not satisfy. */
type Document = NonNullable<ToolUseBlock['input']>;

const partToBlock = (part: ContentPart, param: string): ContentBlock | undefined => {
  switch (part.type) {
    case 'text':
      // Converse refuses a blank text block.
      return part.text === '' ? undefined : { text: part.text };
    case 'image_url':
      return toBedrockImage(part.image_url.url, `${param}.image_url.url`);
    case 'file':
      return toBedrockFile(part.file, `${param}.file.file_data`, `document ${param.replace(/\D+/g, ' ').trim()}`);
    case 'refusal':
      return part.refusal === '' ? undefined : { text: part.refusal };
    case 'input_audio':
    case 'video_url':
      // Converse takes neither from a client: dropped rather than refused, as OpenAI-compatible servers do.
      return undefined;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown content part ${String(unreachable)}`);
    }
  }
};

/** A `cache_control` mark becomes a cache point after the block it marks: Converse caches up to it. */
const marked = (part: Readonly<Record<string, unknown>>) =>
  part['cache_control'] !== null && typeof part['cache_control'] === 'object';

const CACHE_POINT = { cachePoint: { type: 'default' } } as const;

const contentBlocks = (content: ChatMessage['content'], param: string): ContentBlock[] => {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((part, index) => {
    const block = partToBlock(part, `${param}[${index}]`);
    if (!block) return [];
    return marked(part) ? [block, CACHE_POINT] : [block];
  });
};

/** Signed reasoning written back as Converse's reasoning blocks, exactly as it was signed. */
const reasoningBlocks = (message: ChatMessage): ContentBlock[] =>
  verifiableThinking(message.thinking_blocks).map((block) =>
    block.type === 'thinking'
      ? { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } }
      : { reasoningContent: { redactedContent: Buffer.from(block.data, 'base64') } },
  );

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

/** A tool's answer: text, plus any images it returned. */
const toolResultContent = (content: ChatMessage['content'], param: string): ToolResultContentBlock[] => {
  if (typeof content === 'string' || content === undefined || content === null) return [{ text: content ?? '' }];
  const blocks: ToolResultContentBlock[] = [];
  for (const [index, part] of content.entries()) {
    if (part.type === 'text') blocks.push({ text: part.text });
    else if (part.type === 'image_url')
      blocks.push(toBedrockImage(part.image_url.url, `${param}[${index}].image_url.url`));
  }
  return blocks.length > 0 ? blocks : [{ text: '' }];
};

/** A number a double would change, as the SDK writes a document's number: with the digits it was given. */
const exactNumber = (source: string) => new NumericValue(source, 'bigDecimal');

/** Converse wants the tool input as a JSON object; arguments that are not one are wrapped, not lost. */
const parseArguments = (text: string): Document => {
  try {
    const parsed: unknown = parseNestedJson(text || '{}', exactNumber);
    return (
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed }
    ) as Document;
  } catch {
    return { arguments: text };
  }
};

/** Messages as Converse's alternating user/assistant turns, with system and developer text lifted out. */
export const convertToBedrockMessages = (messages: readonly ChatMessage[]) => {
  const system: SystemContentBlock[] = [];
  const { turns, push } = alternatingTurns<ContentBlock>();
  for (const [index, message] of messages.entries()) {
    const param = `messages[${index}].content`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text !== '') system.push({ text });
        if (Array.isArray(message.content) && message.content.some(marked)) system.push(CACHE_POINT);
        break;
      }
      case 'user':
        push('user', contentBlocks(message.content, param));
        break;
      case 'assistant': {
        const blocks = [...reasoningBlocks(message), ...contentBlocks(message.content, param)];
        for (const call of message.tool_calls ?? []) {
          blocks.push({
            toolUse: { toolUseId: call.id, name: call.function.name, input: parseArguments(call.function.arguments) },
          });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [
          { toolResult: { toolUseId: message.tool_call_id!, content: toolResultContent(message.content, param) } },
        ]);
        break;
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  // Tool results open their user turn, as the models behind Converse (Claude first) require.
  for (const turn of turns) {
    if (turn.role === 'user')
      turn.content.sort((a, b) => Number(b.toolResult !== undefined) - Number(a.toolResult !== undefined));
  }
  return { system, messages: turns };
};

const toolChoice = (choice: ChatCompletionRequest['tool_choice']): ToolChoice | undefined => {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.function.name } };
};

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

const inferenceConfig = (request: ChatCompletionRequest): InferenceConfiguration | undefined => {
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
  const config: InferenceConfiguration = {
    ...(present(maxTokens) ? { maxTokens } : {}),
    // OpenAI's scale goes to 2; the models behind Converse take at most 1.
    ...(present(request.temperature) ? { temperature: Math.min(1, request.temperature) } : {}),
    ...(present(request.top_p) ? { topP: request.top_p } : {}),
    ...(stop?.length ? { stopSequences: stop } : {}),
  };
  return Object.keys(config).length > 0 ? config : undefined;
};

/**
 * With thinking on, Claude takes neither a temperature nor a top_p, and its budget must fit inside
 * the output limit.
 */
const thinkingInferenceConfig = (request: ChatCompletionRequest, budget: number): InferenceConfiguration => {
  const { temperature: _temperature, topP: _topP, ...config } = inferenceConfig(request) ?? {};
  const maxTokens = config.maxTokens ?? DEFAULT_MAX_TOKENS;
  return { ...config, maxTokens: maxTokens > budget ? maxTokens : budget + DEFAULT_MAX_TOKENS };
};

/** Claude on Bedrock (`anthropic.…`, or a regional profile such as `us.anthropic.…`, or its ARN). */
const isClaude = (modelId: string) => /(?:^|[./])anthropic\./.test(modelId);

/** The whole Converse input for a chat request, under the upstream's model id. */
/** What beyond the request decides the Converse input: the client's betas, whether the model reasons. */
export interface BedrockConverseOptions {
  readonly betas?: readonly string[];
  readonly reasoning?: boolean;
}

/** Whether the turn a tool loop continues from opens with reasoning, as Claude requires with thinking on. */
const toolLoopKeepsReasoning = (turns: readonly { role?: string; content?: ContentBlock[] }[]): boolean => {
  const last = turns.findLast((turn) => turn.role === 'assistant');
  if (!last?.content?.some((block) => block.toolUse !== undefined)) return true;
  return last.content[0]?.reasoningContent !== undefined;
};

export const toBedrockConverseInput = (
  request: ChatCompletionRequest,
  modelId: string,
  options: BedrockConverseOptions = {},
): BedrockConverseInput => {
  const { system, messages } = convertToBedrockMessages(request.messages);
  const tools: Tool[] | undefined = request.tools?.flatMap((tool): Tool[] => {
    const spec: Tool = {
      toolSpec: {
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        inputSchema: { json: (tool.function.parameters ?? { type: 'object', properties: {} }) as Document },
      },
    };
    return marked(tool) ? [spec, CACHE_POINT] : [spec];
  });
  // Converse has no "none": the tools are left out instead, unless the conversation already holds
  // tool calls or results, which Converse refuses without a toolConfig.
  const sendsTools = tools?.some((tool) => tool.toolSpec !== undefined) ?? false;
  const holdsToolBlocks = messages.some((turn) =>
    turn.content.some((block) => block.toolUse !== undefined || block.toolResult !== undefined),
  );
  const sendTools = sendsTools && (request.tool_choice !== 'none' || holdsToolBlocks);
  const choice = toolChoice(request.tool_choice);
  const claude = isClaude(modelId);
  // Betas and thinking reach Claude through the model's own fields; other models behind Converse refuse them.
  const betas = claude ? bedrockChannelBetas(options.betas ?? []) : [];
  const effort = request.reasoning_effort;
  const budget =
    claude && effort && effort !== 'minimal' && options.reasoning !== false && toolLoopKeepsReasoning(messages)
      ? thinkingBudgets[effort]
      : undefined;
  const config = budget === undefined ? inferenceConfig(request) : thinkingInferenceConfig(request, budget);
  const modelFields = {
    ...(betas.length ? { anthropic_beta: betas } : {}),
    ...(budget !== undefined ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
  };
  return {
    modelId,
    messages,
    ...(system.length ? { system } : {}),
    ...(config ? { inferenceConfig: config } : {}),
    ...(Object.keys(modelFields).length ? { additionalModelRequestFields: modelFields } : {}),
    ...(sendTools ? { toolConfig: { tools, ...(choice ? { toolChoice: choice } : {}) } } : {}),
  };
};
