import { toGeminiFinishReason } from './gemini-finish-reason.js';
import type { ChatCompletion, ChatToolCall, ChatUsage } from '../openai-chat/chat-completion-result.js';
import { parseToolInput } from '../openai-chat/tool-arguments.js';
import { thoughtSignatureOf } from '../openai-chat/thought-signature.js';

/** Google's generateContent answer shapes, as the gateway emits them. */
export interface GeminiOutputPart {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name: string; args: unknown };
  thoughtSignature?: string;
}

export interface GeminiOutputCandidate {
  content: { role: 'model'; parts: GeminiOutputPart[] };
  finishReason?: string;
  index: number;
}

export interface GeminiOutputResponse {
  candidates: GeminiOutputCandidate[];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
  responseId: string;
}

/** OpenAI usage as Gemini's usageMetadata: reasoning tokens are Gemini's thoughts. */
export const toUsageMetadata = (usage: ChatUsage): Record<string, number> => {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: Math.max(0, usage.completion_tokens - reasoning),
    totalTokenCount: usage.total_tokens,
    ...(cached ? { cachedContentTokenCount: cached } : {}),
    ...(reasoning ? { thoughtsTokenCount: reasoning } : {}),
  };
};

export const functionCallPart = (call: Pick<ChatToolCall, 'id' | 'function' | 'extra_content'>): GeminiOutputPart => {
  const signature = thoughtSignatureOf(call);
  return {
    functionCall: { id: call.id, name: call.function.name, args: parseToolInput(call.function.arguments) },
    ...(signature ? { thoughtSignature: signature } : {}),
  };
};

export const geminiResponseId = (chatId: string) => chatId.replace(/^chatcmpl-/, '');

/** An OpenAI chat completion as a generateContent answer, one candidate per choice. */
export const chatToGeminiResponse = (completion: ChatCompletion, model: string): GeminiOutputResponse => ({
  candidates: completion.choices.map((choice) => {
    const parts: GeminiOutputPart[] = [];
    if (choice.message.reasoning_content) parts.push({ text: choice.message.reasoning_content, thought: true });
    if (typeof choice.message.content === 'string' && choice.message.content !== '')
      parts.push({ text: choice.message.content });
    for (const call of choice.message.tool_calls ?? []) parts.push(functionCallPart(call));
    if (parts.length === 0) parts.push({ text: '' });
    const finishReason = toGeminiFinishReason(choice.finish_reason);
    return { content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: choice.index };
  }),
  ...(completion.usage ? { usageMetadata: toUsageMetadata(completion.usage) } : {}),
  modelVersion: model,
  responseId: geminiResponseId(completion.id),
});
