import { UpstreamError } from '../../upstream/upstream-errors.js';
import {
  PROMPT_USAGE,
  type ChatCompletionChunk,
  type ChatUsage,
} from '../../protocols/openai-chat/chat-completion-result.js';
import type { GeminiResponse } from './gemini-api.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { toChatUsage, translateParts } from './gemini-response.js';

/** An `{error}` payload in the middle of a Gemini stream. */
export const geminiStreamError = (error: { message?: string | null; status?: string | null }) =>
  new UpstreamError(`The upstream provider failed mid-stream: ${error.message ?? error.status ?? 'unknown error'}`, {
    status: 502,
    code: 'upstream_error',
    retryable: false,
  });

export interface GeminiStreamTranslator {
  /** The chat chunks one streamed GenerateContentResponse becomes. */
  push(response: GeminiResponse): ChatCompletionChunk[];
  /** The final usage chunk, once the stream has ended. */
  end(): ChatCompletionChunk[];
}

/**
 * streamGenerateContent events → OpenAI chat chunks. Gemini sends each function call whole, so each
 * becomes one tool call delta (name and all arguments) at the next index; usageMetadata is cumulative,
 * so the last one wins and leaves as a final chunk with `choices: []`.
 */
export const createGeminiStreamTranslator = (
  idPrefix: string,
  created = Math.floor(Date.now() / 1000),
): GeminiStreamTranslator => {
  let started = new Set<number>();
  const toolCounts = new Map<number, number>();
  let usage: ChatUsage | undefined;
  let id = `chatcmpl-${idPrefix}`;
  let model = '';
  let calls = 0;
  const nextCallId = () => `call_${idPrefix}_${calls++}`;

  const chunk = (
    index: number,
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index, delta, finish_reason: finish, logprobs: null }],
  });

  return {
    push(response) {
      if (response.responseId) id = `chatcmpl-${response.responseId}`;
      if (response.modelVersion) model = response.modelVersion;
      if (response.usageMetadata) usage = toChatUsage(response.usageMetadata);
      const chunks: ChatCompletionChunk[] = [];
      if (!response.candidates?.length && response.promptFeedback?.blockReason) {
        chunks.push(chunk(0, { role: 'assistant', content: '' }, 'content_filter'));
        return chunks;
      }
      for (const [position, candidate] of (response.candidates ?? []).entries()) {
        const index = candidate.index ?? position;
        const { text, reasoning, toolCalls } = translateParts(candidate.content?.parts ?? [], nextCallId);
        if (!started.has(index)) {
          started = new Set(started).add(index);
          chunks.push(chunk(index, { role: 'assistant', content: '' }));
        }
        if (reasoning) chunks.push(chunk(index, { reasoning_content: reasoning }));
        if (text) chunks.push(chunk(index, { content: text }));
        for (const call of toolCalls) {
          const toolIndex = toolCounts.get(index) ?? 0;
          toolCounts.set(index, toolIndex + 1);
          chunks.push(
            chunk(index, {
              tool_calls: [{ index: toolIndex, ...call }],
            }),
          );
        }
        const finish = candidate.finishReason
          ? mapGeminiFinishReason(candidate.finishReason, (toolCounts.get(index) ?? 0) > 0)
          : null;
        if (finish) chunks.push(chunk(index, {}, finish));
      }
      // Gemini counts the prompt in every response, the first included: the chunks carry it on.
      if (usage && response.usageMetadata?.promptTokenCount != null)
        for (const each of chunks) each[PROMPT_USAGE] = usage;
      return chunks;
    },
    end() {
      return usage ? [{ id, object: 'chat.completion.chunk', created, model, choices: [], usage }] : [];
    },
  };
};
