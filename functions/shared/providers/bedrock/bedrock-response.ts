import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCompletion, ChatToolCall } from '../../protocols/openai-chat/chat-completion-result.js';
import { singleChoiceCompletion } from '../assistant-choice.js';
import type { ThinkingBlock } from '../../protocols/openai-chat/thinking-blocks.js';
import { NumericValue } from '@smithy/core/serde';
import { rawJson } from '../../http/exact-numbers.js';
import { JSON_NUMBER } from '../../http/json-characters.js';
import { toChatUsage } from './bedrock-usage.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

/** The parts of a Converse answer the gateway reads. */
export type BedrockConverseOutput = Pick<ConverseCommandOutput, 'output' | 'stopReason' | 'usage'>;

/** Text `JSON.rawJSON` takes as a number: it throws on anything else. */
const WHOLE_JSON_NUMBER = new RegExp(`^(?:${JSON_NUMBER.source})$`);

/**
 * A number the SDK read from a tool's input without rounding it: an integer past 2^53 as a bigint, a
 * decimal with more digits than a double holds as Smithy's `NumericValue`, told by its prototype
 * (its own `instanceof` also takes any plain object of the same members, which a tool input may be).
 */
const exactDigitsOf = (value: unknown): string | undefined => {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== NumericValue.prototype)
    return undefined;
  const { string } = value as NumericValue;
  return WHOLE_JSON_NUMBER.test(string) ? string : undefined;
};

/** Such numbers written with the digits the model wrote: JSON has room for them, a double has not. */
const exactNumbers = (_name: string, value: unknown): unknown => {
  const digits = exactDigitsOf(value);
  return digits === undefined ? value : rawJson(digits);
};

/** A tool call's input as the JSON text of OpenAI's `arguments`. */
const toolInputText = (input: unknown): string => JSON.stringify(input ?? {}, exactNumbers) ?? '{}';

/**
 * A whole Converse answer as an OpenAI chat completion. Converse names no response, so the caller
 * gives the id (the AWS request id serves well) and the model.
 */
export const fromBedrockResponse = (
  response: BedrockConverseOutput,
  options: { readonly id: string; readonly model: string; readonly created?: number },
): ChatCompletion => {
  let text = '';
  let reasoning = '';
  const thinking: ThinkingBlock[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of response.output?.message?.content ?? []) {
    if (typeof block.text === 'string') text += block.text;
    else if (block.reasoningContent?.reasoningText) {
      const { text: thought = '', signature } = block.reasoningContent.reasoningText;
      reasoning += thought;
      thinking.push({ type: 'thinking', thinking: thought, ...(signature ? { signature } : {}) });
    } else if (block.reasoningContent?.redactedContent)
      thinking.push({
        type: 'redacted_thinking',
        data: Buffer.from(block.reasoningContent.redactedContent).toString('base64'),
      });
    else if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId ?? `call_${options.id}_${toolCalls.length}`,
        type: 'function',
        function: { name: block.toolUse.name ?? '', arguments: toolInputText(block.toolUse.input) },
      });
    }
    // Images, citations, guardrail notes and newer block types carry nothing an OpenAI client reads.
  }
  const completion = singleChoiceCompletion(
    {
      id: `chatcmpl-${options.id}`,
      created: options.created ?? Math.floor(Date.now() / 1000),
      model: options.model,
      usage: response.usage ? toChatUsage(response.usage) : undefined,
    },
    { text, reasoning, toolCalls },
    mapBedrockStopReason(response.stopReason) ?? 'stop',
  );
  // Signed reasoning rides beside reasoning_content, so that the next turn can send it back.
  if (thinking.length > 0) completion.choices[0]!.message.thinking_blocks = thinking;
  return completion;
};
