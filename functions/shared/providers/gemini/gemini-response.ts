import type {
  ChatCompletion,
  ChatToolCall,
  ChatUsage,
  FinishReason,
} from '../../protocols/openai-chat/chat-completion-result.js';
import { thoughtSignatureField } from '../../protocols/openai-chat/thought-signature.js';
import { assistantChoice } from '../assistant-choice.js';
import type { GeminiPart, GeminiResponse, GeminiUsage } from './gemini-api.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';

/** Gemini's usageMetadata as OpenAI's usage: thoughts count as completion tokens, as OpenAI counts reasoning. */
export const toChatUsage = (usage: GeminiUsage): ChatUsage => {
  const promptTokens = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const completionTokens = (usage.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: usage.totalTokenCount ?? promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
};

export interface TranslatedParts {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: ChatToolCall[];
}

/** A candidate's parts as text, reasoning and tool calls; `nextCallId` names calls Gemini left unnamed. */
export const translateParts = (parts: readonly GeminiPart[], nextCallId: () => string): TranslatedParts => {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of parts) {
    if (part.functionCall) {
      toolCalls.push({
        id: part.functionCall.id ?? nextCallId(),
        type: 'function',
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
        ...thoughtSignatureField(part.thoughtSignature),
      });
    } else if (typeof part.text === 'string') {
      if (part.thought) reasoning += part.text;
      else text += part.text;
    }
  }
  return { text, reasoning, toolCalls };
};

/** A whole generateContent answer as an OpenAI chat completion, one choice per candidate. */
export const fromGeminiResponse = (
  response: GeminiResponse,
  idPrefix: string,
  created = Math.floor(Date.now() / 1000),
): ChatCompletion => {
  let calls = 0;
  const nextCallId = () => `call_${idPrefix}_${calls++}`;
  const candidates = response.candidates ?? [];
  const choices: ChatCompletion['choices'] = candidates.map((candidate, position) => {
    const { text, reasoning, toolCalls } = translateParts(candidate.content?.parts ?? [], nextCallId);
    const finish: FinishReason = mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0) ?? 'stop';
    return assistantChoice({ text, reasoning, toolCalls }, finish, candidate.index ?? position);
  });
  // A prompt Gemini blocked comes back without candidates: an empty, filtered answer.
  if (choices.length === 0) {
    choices.push(assistantChoice({ text: '', reasoning: '', toolCalls: [] }, 'content_filter'));
  }
  return {
    id: `chatcmpl-${response.responseId ?? idPrefix}`,
    object: 'chat.completion',
    created,
    model: response.modelVersion ?? '',
    choices,
    ...(response.usageMetadata ? { usage: toChatUsage(response.usageMetadata) } : {}),
  };
};
