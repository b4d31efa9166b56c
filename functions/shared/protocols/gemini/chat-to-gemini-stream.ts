import { toGeminiFinishReason } from './gemini-finish-reason.js';
import type { ChatCompletionChunk, ChatUsage, FinishReason } from '../openai-chat/chat-completion-result.js';
import {
  functionCallPart,
  geminiResponseId,
  toUsageMetadata,
  type GeminiOutputPart,
  type GeminiOutputResponse,
} from './chat-to-gemini-response.js';

export interface ChatToGeminiStream {
  /** The streamGenerateContent events one chat chunk becomes. */
  push(chunk: ChatCompletionChunk): GeminiOutputResponse[];
  /** The last event (finishReason and usageMetadata), once the chat stream has ended. */
  end(): GeminiOutputResponse[];
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * OpenAI chat chunks → streamGenerateContent events. Text and thoughts go out as they arrive; Gemini
 * sends function calls whole, so argument deltas are collected and each call leaves complete when
 * its choice finishes. The finishReason waits for the usage, which OpenAI sends last, and both go
 * in the final event.
 */
export const createChatToGeminiStream = (model: string): ChatToGeminiStream => {
  let responseId = '';
  const calls = new Map<number, Map<number, PendingCall>>();
  const finishes = new Map<number, FinishReason>();
  let usage: ChatUsage | undefined;

  const event = (index: number, parts: GeminiOutputPart[], finishReason?: string): GeminiOutputResponse => ({
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index }],
    modelVersion: model,
    responseId,
  });

  const flushCalls = (index: number): GeminiOutputResponse[] => {
    const pending = calls.get(index);
    if (!pending?.size) return [];
    calls.delete(index);
    return [
      event(
        index,
        [...pending.values()].map((call) =>
          functionCallPart({ id: call.id, function: { name: call.name, arguments: call.arguments } }),
        ),
      ),
    ];
  };

  return {
    push(chunk) {
      responseId ||= geminiResponseId(chunk.id);
      if (chunk.usage) usage = chunk.usage;
      const events: GeminiOutputResponse[] = [];
      for (const choice of chunk.choices) {
        const delta = choice.delta ?? {};
        const parts: GeminiOutputPart[] = [];
        if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
          parts.push({ text: delta.reasoning_content, thought: true });
        if (typeof delta.content === 'string' && delta.content !== '') parts.push({ text: delta.content });
        if (parts.length) events.push(event(choice.index, parts));
        for (const call of delta.tool_calls ?? []) {
          const pending = calls.get(choice.index) ?? new Map<number, PendingCall>();
          calls.set(choice.index, pending);
          const entry = pending.get(call.index) ?? {
            id: call.id ?? `call_${responseId}_${call.index}`,
            name: '',
            arguments: '',
          };
          if (call.function?.name) entry.name += call.function.name;
          if (call.function?.arguments) entry.arguments += call.function.arguments;
          pending.set(call.index, entry);
        }
        if (choice.finish_reason) {
          finishes.set(choice.index, choice.finish_reason);
          events.push(...flushCalls(choice.index));
        }
      }
      return events;
    },

    end() {
      const events: GeminiOutputResponse[] = [];
      for (const index of calls.keys()) events.push(...flushCalls(index));
      const indexes = finishes.size ? [...finishes.keys()] : [0];
      for (const index of indexes) {
        const last = event(index, [{ text: '' }], toGeminiFinishReason(finishes.get(index) ?? 'stop'));
        events.push(usage ? { ...last, usageMetadata: toUsageMetadata(usage) } : last);
      }
      return events;
    },
  };
};
