import { randomUUID } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChunk } from '../../protocols/openai-chat/chat-completion-result.js';
import type { ChatProvider } from '../provider.js';
import { demoAnswer } from './demo-answer.js';

/**
 * The built-in `demo` upstream: answers in-process with deterministic text, streamed word by word,
 * so that a fresh gateway works offline. A documented provider, not a test double.
 */
const choiceIndexes = (n: number | null | undefined) => Array.from({ length: n ?? 1 }, (_, index) => index);

export const demoProvider: ChatProvider = {
  async complete(call) {
    const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
    const answer = demoAnswer(call.request, id);
    const result: ChatCompletion = {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: call.upstreamModel,
      choices: choiceIndexes(call.request.n).map((index) => ({
        index,
        message: answer.toolCall
          ? { role: 'assistant', content: null, tool_calls: [answer.toolCall] }
          : { role: 'assistant', content: answer.words.join('') },
        finish_reason: answer.finishReason,
      })),
      usage: answer.usage,
    };
    return result;
  },

  async stream(call) {
    const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
    const created = Math.floor(Date.now() / 1000);
    const answer = demoAnswer(call.request, id);
    const indexes = choiceIndexes(call.request.n);
    const chunk = (
      choices: ChatCompletionChunk['choices'],
      usage?: ChatCompletionChunk['usage'],
    ): ChatCompletionChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: call.upstreamModel,
      choices,
      ...(usage === undefined ? {} : { usage }),
    });
    return (async function* demoChunks() {
      yield chunk(indexes.map((index) => ({ index, delta: { role: 'assistant', content: '' }, finish_reason: null })));
      if (answer.toolCall) {
        const { id: callId, function: fn } = answer.toolCall;
        yield chunk(
          indexes.map((index) => ({
            index,
            delta: {
              tool_calls: [
                { index: 0, id: callId, type: 'function', function: { name: fn.name, arguments: fn.arguments } },
              ],
            },
            finish_reason: null,
          })),
        );
      }
      for (const word of answer.words) {
        if (call.signal.aborted) return;
        yield chunk(indexes.map((index) => ({ index, delta: { content: word }, finish_reason: null })));
      }
      yield chunk(indexes.map((index) => ({ index, delta: {}, finish_reason: answer.finishReason })));
      yield chunk([], answer.usage);
    })();
  },
};
