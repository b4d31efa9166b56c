import { alternatingTurns } from '../alternating-turns.js';
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
} from '../../protocols/openai-chat/chat-completion-request.js';
import { parseNestedJson } from '../../http/json-depth.js';
import { verifiableThinking } from '../../protocols/openai-chat/thinking-blocks.js';
import {
  JSON_MODE_INSTRUCTION,
  toAnthropicOutputConfig,
} from '../../protocols/anthropic-messages/anthropic-output-format.js';

import { DEFAULT_MAX_TOKENS, thinkingBudgets } from '../claude-thinking.js';

/** OpenAI chat request → Anthropic Messages request: pure, so it is tested on plain data. */

type AnthropicBlock = Record<string, unknown> & { type: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An image part by URL or as a base64 data URL. */
export const toAnthropicImage = (url: string): AnthropicBlock => {
  const data = DATA_URL.exec(url);
  return data
    ? { type: 'image', source: { type: 'base64', media_type: data[1]!, data: data[2]! } }
    : { type: 'image', source: { type: 'url', url } };
};

/** A part's `cache_control` mark, carried onto the block it becomes (Anthropic caches up to it). */
const cacheMark = (part: Readonly<Record<string, unknown>>) =>
  part['cache_control'] !== null && typeof part['cache_control'] === 'object'
    ? { cache_control: part['cache_control'] }
    : {};

const partToBlock = (part: ContentPart): AnthropicBlock | undefined => {
  const block = plainBlock(part);
  return block ? { ...block, ...cacheMark(part) } : undefined;
};

const plainBlock = (part: ContentPart): AnthropicBlock | undefined => {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return toAnthropicImage(part.image_url.url);
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'file': {
      const data = part.file.file_data ? DATA_URL.exec(part.file.file_data) : null;
      return data ? { type: 'document', source: { type: 'base64', media_type: data[1]!, data: data[2]! } } : undefined;
    }
    case 'input_audio':
    case 'video_url':
      // Anthropic takes neither: dropped rather than refused, as OpenAI-compatible servers do.
      return undefined;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown content part ${String(unreachable)}`);
    }
  }
};

const contentBlocks = (content: ChatMessage['content']): AnthropicBlock[] => {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map(partToBlock).filter((block): block is AnthropicBlock => block !== undefined);
};

const parseArguments = (text: string): unknown => {
  try {
    const parsed: unknown = parseNestedJson(text || '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    return { arguments: text };
  }
};

const toolResultContent = (content: ChatMessage['content']): string | AnthropicBlock[] =>
  typeof content === 'string' ? content : contentBlocks(content);

/** Messages as Anthropic's alternating user/assistant turns, with system text lifted out. */
export const convertToAnthropicMessages = (messages: readonly ChatMessage[]) => {
  const system: AnthropicBlock[] = [];
  const { turns, push } = alternatingTurns<AnthropicBlock>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        if (typeof message.content === 'string') system.push({ type: 'text', text: message.content });
        else system.push(...contentBlocks(message.content).filter((block) => block.type === 'text'));
        break;
      case 'user':
        push('user', contentBlocks(message.content));
        break;
      case 'assistant': {
        // Signed thinking goes back first and exactly as it was signed, or Anthropic refuses the turn.
        const blocks: AnthropicBlock[] = verifiableThinking(message.thinking_blocks).map((block) => ({ ...block }));
        blocks.push(...contentBlocks(message.content));
        for (const call of message.tool_calls ?? []) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.function.name,
            input: parseArguments(call.function.arguments),
          });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [
          { type: 'tool_result', tool_use_id: message.tool_call_id!, content: toolResultContent(message.content) },
        ]);
        break;
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  // Tool results must open their user turn: Anthropic refuses text before them.
  for (const turn of turns) {
    if (turn.role === 'user')
      turn.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return { system: systemPrompt(system.filter((block) => block.text !== '')), messages: turns };
};

/** Plain text when nothing in it is marked for caching; the blocks themselves when something is. */
const systemPrompt = (blocks: readonly AnthropicBlock[]): string | AnthropicBlock[] =>
  blocks.some((block) => block.cache_control !== undefined)
    ? [...blocks]
    : blocks.map((block) => String(block.text)).join('\n\n');

/** Whether the turn a tool loop continues from opens with thinking, as Anthropic requires with thinking on. */
const toolLoopKeepsThinking = (turns: readonly { role: string; content: readonly AnthropicBlock[] }[]): boolean => {
  const last = turns.findLast((turn) => turn.role === 'assistant');
  if (!last || !last.content.some((block) => block.type === 'tool_use')) return true;
  const first = last.content[0]?.type;
  return first === 'thinking' || first === 'redacted_thinking';
};

const toolChoice = (request: ChatCompletionRequest): Record<string, unknown> | undefined => {
  const parallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  const choice = request.tool_choice;
  if (choice === undefined) return Object.keys(parallel).length > 0 ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  return { type: 'tool', name: choice.function.name, ...parallel };
};

const appendInstruction = (system: string | AnthropicBlock[]): string | AnthropicBlock[] =>
  typeof system === 'string'
    ? [system, JSON_MODE_INSTRUCTION].filter((text) => text !== '').join('\n\n')
    : [...system, { type: 'text', text: JSON_MODE_INSTRUCTION }];

const stopSequences = (stop: ChatCompletionRequest['stop']): string[] | undefined =>
  stop === undefined || stop === null ? undefined : typeof stop === 'string' ? [stop] : stop;

/** The whole Anthropic request body for a chat request, under the upstream's model name. */
export const toAnthropicRequest = (
  request: ChatCompletionRequest,
  upstreamModel: string,
  stream: boolean,
  options: { readonly reasoning?: boolean } = {},
): Record<string, unknown> => {
  const converted = convertToAnthropicMessages(request.messages);
  const { messages } = converted;
  let maxTokens = request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS;
  const effort = request.reasoning_effort;
  // Thinking only for a model that thinks, and not to continue a tool loop whose last turn carries no
  // signed thinking (a conversation from another vendor): Anthropic refuses both.
  const budget =
    effort && effort !== 'minimal' && options.reasoning !== false && toolLoopKeepsThinking(messages)
      ? thinkingBudgets[effort]
      : undefined;
  const outputConfig = toAnthropicOutputConfig(request.response_format);
  const system =
    request.response_format?.type === 'json_object' ? appendInstruction(converted.system) : converted.system;
  // Anthropic requires the thinking budget to fit inside max_tokens.
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + DEFAULT_MAX_TOKENS;
  const tools = request.tools?.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    ...cacheMark(tool),
  }));
  const choice = toolChoice(request);
  const stop = stopSequences(request.stop);
  return {
    model: upstreamModel,
    max_tokens: maxTokens,
    messages,
    ...(system.length ? { system } : {}),
    ...(tools?.length ? { tools } : {}),
    ...(outputConfig ? { output_config: outputConfig } : {}),
    ...(choice && tools?.length ? { tool_choice: choice } : {}),
    ...(stop?.length ? { stop_sequences: stop } : {}),
    // With thinking on, Anthropic accepts neither a temperature nor a top_p below 0.95.
    ...(budget === undefined && request.temperature !== undefined && request.temperature !== null
      ? { temperature: Math.min(1, request.temperature) }
      : {}),
    ...(budget === undefined && request.top_p !== undefined && request.top_p !== null ? { top_p: request.top_p } : {}),
    ...(budget !== undefined ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...(request.user ? { metadata: { user_id: request.user } } : {}),
    ...(stream ? { stream: true } : {}),
  };
};
