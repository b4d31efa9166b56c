import type { TokenUsage } from '../shared/accounting/token-usage.js';
import { toTokenUsage } from '../shared/protocols/openai-chat/chat-completion-result.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { geminiNative } from '../shared/providers/gemini/gemini-native.js';
import { toChatUsage } from '../shared/providers/gemini/gemini-response.js';
import type { GeminiUsage } from '../shared/providers/gemini/gemini-api.js';
import { channelCall, reasonsOn } from '../shared/routing/channel-call.js';
import { fitChatRequest } from '../shared/protocols/openai-chat/fit-chat-request.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import type { GeminiGenerateContentRequest } from '../shared/protocols/gemini/gemini-generate-content-request.js';
import { chatToGeminiResponse } from '../shared/protocols/gemini/chat-to-gemini-response.js';
import { createChatToGeminiStream } from '../shared/protocols/gemini/chat-to-gemini-stream.js';
import type { Channel } from '../shared/store/channels.js';

/**
 * How each channel serves a Gemini-format request: a gemini channel takes the client's body as it is
 * (nothing lost in translation: Gemini 3's signatures, topK, safety settings); any other chat channel
 * takes it through the chat form.
 */
export const isNativeGemini = (channel: Channel): boolean => channel.type === 'gemini';

/** The request in both forms: as the client sent it, and as chat for translated channels. */
export interface GeminiRequestForms {
  readonly native: GeminiGenerateContentRequest;
  readonly chat: ChatCompletionRequest;
}

/** A whole answer, and what it tells the meter. */
export interface GeminiAnswer {
  readonly body: object;
  readonly usage?: TokenUsage;
}

/** One step of a streamed answer: the events it sends (maybe none), and what it tells the meter. */
export interface GeminiStreamStep {
  readonly events: object[];
  /** Usage the upstream reported (cumulative: the last one counts). */
  readonly usage?: TokenUsage;
  /** Answer text, for an estimate when no usage arrives. */
  readonly text: string;
}

const usageOf = (usage: GeminiUsage | undefined): TokenUsage | undefined =>
  usage ? toTokenUsage(toChatUsage(usage)) : undefined;

const textOf = (body: Record<string, unknown>): string => {
  const candidates = Array.isArray(body.candidates) ? (body.candidates as { content?: { parts?: unknown } }[]) : [];
  return candidates
    .flatMap((candidate) => (Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []))
    .map((part: { text?: unknown; functionCall?: unknown }) =>
      typeof part?.text === 'string' ? part.text : part?.functionCall ? JSON.stringify(part.functionCall) : '',
    )
    .join('');
};

/** One whole answer from one channel, under the public model id. */
export const generateOn = async (
  channel: Channel,
  request: GeminiRequestForms,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<GeminiAnswer> => {
  if (isNativeGemini(channel)) {
    const answer = await geminiNative.generate(channelCall(request.native, channel, model, signal), model.id);
    return { body: answer.body, usage: usageOf(answer.usage) };
  }
  const completion = await chatAdapterOf(channel.type).complete(
    channelCall(fitChatRequest(request.chat, { reasoning: reasonsOn(channel, model) }), channel, model, signal),
  );
  return {
    body: chatToGeminiResponse(completion, model.id),
    usage: completion.usage ? toTokenUsage(completion.usage) : undefined,
  };
};

/** The streamed answer from one channel; resolves once the upstream has accepted the request. */
export const streamOn = async (
  channel: Channel,
  request: GeminiRequestForms,
  model: CatalogModel,
  signal: AbortSignal,
): Promise<AsyncIterable<GeminiStreamStep>> => {
  if (isNativeGemini(channel)) {
    const answers = await geminiNative.stream(channelCall(request.native, channel, model, signal), model.id);
    return (async function* nativeSteps(): AsyncGenerator<GeminiStreamStep> {
      for await (const answer of answers) {
        yield { events: [answer.body], usage: usageOf(answer.usage), text: textOf(answer.body) };
      }
    })();
  }
  const chunks = await chatAdapterOf(channel.type).stream(
    channelCall(fitChatRequest(request.chat, { reasoning: reasonsOn(channel, model) }), channel, model, signal),
  );
  const translator = createChatToGeminiStream(model.id);
  return (async function* translatedSteps(): AsyncGenerator<GeminiStreamStep> {
    for await (const chunk of chunks) {
      let text = '';
      for (const choice of chunk.choices) {
        if (typeof choice.delta?.content === 'string') text += choice.delta.content;
        for (const call of choice.delta?.tool_calls ?? []) text += call.function?.arguments ?? '';
      }
      yield { events: translator.push(chunk), usage: chunk.usage ? toTokenUsage(chunk.usage) : undefined, text };
    }
    yield { events: translator.end(), text: '' };
  })();
};
