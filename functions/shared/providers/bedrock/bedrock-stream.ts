import type { ConverseStreamOutput, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCompletionChunk, FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';
import { bedrockStreamError } from './bedrock-errors.js';
import { toChatUsage } from './bedrock-usage.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

/** The member names of a ConverseStream event, as the SDK's union spells them. */
type BedrockStreamEventName = Exclude<keyof ConverseStreamOutput, '$unknown'>;

const EVENT_NAMES: readonly BedrockStreamEventName[] = [
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
  'internalServerException',
  'modelStreamErrorException',
  'validationException',
  'throttlingException',
  'serviceUnavailableException',
];

const eventName = (event: ConverseStreamOutput): BedrockStreamEventName | undefined =>
  EVENT_NAMES.find((name) => event[name] !== undefined);

/** `modelStreamErrorException` → `ModelStreamErrorException`, the name the SDK gives the thrown error. */
const exceptionName = (member: string) => member.charAt(0).toUpperCase() + member.slice(1);

export interface BedrockStreamTranslator {
  /** The chat chunks one ConverseStream event becomes (often none). */
  push(event: ConverseStreamOutput): ChatCompletionChunk[];
  /** The final usage chunk, once the stream has ended. */
  end(): ChatCompletionChunk[];
  /** Whether `messageStop` has been seen: without it the answer is incomplete. */
  readonly done: boolean;
}

/**
 * ConverseStream events → OpenAI chat chunks. Text deltas become `content`, reasoning deltas
 * `reasoning_content`; each toolUse block becomes the next tool call index, its start carrying the id
 * and name and its input deltas the argument fragments, in order. `messageStop` gives the finish
 * chunk; the usage of the closing `metadata` event leaves as one final chunk with `choices: []`.
 */
export const createBedrockStreamTranslator = (options: {
  readonly id: string;
  readonly model: string;
  readonly created?: number;
}): BedrockStreamTranslator => {
  const id = `chatcmpl-${options.id}`;
  const created = options.created ?? Math.floor(Date.now() / 1000);
  const toolIndexByBlock = new Map<number, number>();
  let usage: Partial<TokenUsage> | undefined;

  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finish: FinishReason | null = null,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: options.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });

  const push = (event: ConverseStreamOutput): ChatCompletionChunk[] => {
    const name = eventName(event);
    switch (name) {
      case 'messageStart':
        return [chunk({ role: 'assistant', content: '' })];
      case 'contentBlockStart': {
        const toolUse = event.contentBlockStart!.start?.toolUse;
        if (!toolUse) return [];
        const toolIndex = toolIndexByBlock.size;
        toolIndexByBlock.set(event.contentBlockStart!.contentBlockIndex ?? toolIndex, toolIndex);
        return [
          chunk({
            tool_calls: [
              {
                index: toolIndex,
                id: toolUse.toolUseId ?? `call_${options.id}_${toolIndex}`,
                type: 'function',
                function: { name: toolUse.name ?? '', arguments: '' },
              },
            ],
          }),
        ];
      }
      case 'contentBlockDelta': {
        const { delta, contentBlockIndex } = event.contentBlockDelta!;
        if (typeof delta?.text === 'string') return delta.text === '' ? [] : [chunk({ content: delta.text })];
        if (delta?.toolUse) {
          const toolIndex = toolIndexByBlock.get(contentBlockIndex ?? -1);
          if (toolIndex === undefined || !delta.toolUse.input) return [];
          return [chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.toolUse.input } }] })];
        }
        if (delta?.reasoningContent?.text) return [chunk({ reasoning_content: delta.reasoningContent.text })];
        // A signature closes its reasoning block; redacted reasoning arrives whole. Both travel signed.
        if (delta?.reasoningContent?.signature)
          return [
            chunk({
              thinking_blocks: [{ type: 'thinking', thinking: '', signature: delta.reasoningContent.signature }],
            }),
          ];
        if (delta?.reasoningContent?.redactedContent) {
          const data = Buffer.from(delta.reasoningContent.redactedContent).toString('base64');
          return [chunk({ thinking_blocks: [{ type: 'redacted_thinking', data }] })];
        }
        // Citations and newer delta types carry nothing an OpenAI client reads.
        return [];
      }
      case 'contentBlockStop':
        return [];
      case 'messageStop':
        translator.done = true;
        return [chunk({}, mapBedrockStopReason(event.messageStop!.stopReason) ?? 'stop')];
      case 'metadata':
        usage = event.metadata!.usage ?? usage;
        return [];
      case 'internalServerException':
      case 'modelStreamErrorException':
      case 'validationException':
      case 'throttlingException':
      case 'serviceUnavailableException':
        // The SDK throws these itself; a stream handed over as plain events may still carry one.
        throw bedrockStreamError({ ...event[name], name: exceptionName(name), message: event[name]!.message });
      case undefined:
        // An event type newer than this adapter.
        return [];
      default: {
        const unreachable: never = name;
        throw new Error(`unknown Bedrock event ${String(unreachable)}`);
      }
    }
  };

  // `done` is a member set in place, not a getter: an object literal whose getter is a new closure
  // gets a hidden class of its own each time, kept in the old generation with the stream's state.
  const translator: { -readonly [Member in keyof BedrockStreamTranslator]: BedrockStreamTranslator[Member] } = {
    push,
    end: () =>
      usage
        ? [
            {
              id,
              object: 'chat.completion.chunk',
              created,
              model: options.model,
              choices: [],
              usage: toChatUsage(usage),
            },
          ]
        : [],
    done: false,
  };
  return translator;
};
