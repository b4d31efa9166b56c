import type {
  ChatCompletion,
  ChatToolCall,
  ChatUsage,
  FinishReason,
} from '../protocols/openai-chat/chat-completion-result.js';

/** What a vendor's answer boils down to before it is an OpenAI choice. */
export interface AssistantTurn {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: ChatToolCall[];
}

type Choice = ChatCompletion['choices'][number];

/**
 * One OpenAI choice from a translated answer. `content` is null when the turn is only tool calls, as
 * OpenAI sends it; reasoning goes in `reasoning_content`, the field reasoning-aware clients read.
 */
export const assistantChoice = (
  { text, reasoning, toolCalls }: AssistantTurn,
  finishReason: FinishReason,
  index = 0,
): Choice => ({
  index,
  message: {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    refusal: null,
  },
  finish_reason: finishReason,
  logprobs: null,
});

/** A completion of one choice, as every translated upstream answers. */
export const singleChoiceCompletion = (
  fields: {
    readonly id: string;
    readonly created: number;
    readonly model: string;
    readonly usage: ChatUsage | undefined;
  },
  turn: AssistantTurn,
  finishReason: FinishReason,
): ChatCompletion => ({
  id: fields.id,
  object: 'chat.completion',
  created: fields.created,
  model: fields.model,
  choices: [assistantChoice(turn, finishReason)],
  ...(fields.usage ? { usage: fields.usage } : {}),
});
