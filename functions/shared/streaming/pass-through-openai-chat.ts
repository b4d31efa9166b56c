import type { EventSourceMessage } from 'eventsource-parser';
import { openAiChunkSchema } from '../providers/openai/openai-api.js';
import { openAiStreamError } from '../providers/openai/openai-provider.js';
import type { ChatCompletionChunk } from '../protocols/openai-chat/chat-completion-result.js';
import type { TokenUsage } from '../accounting/token-usage.js';
import { toTokenUsage } from '../protocols/openai-chat/chat-completion-result.js';
import { upstreamBrokenResponse } from '../upstream/upstream-errors.js';
import { markBodyComplete, type UpstreamResponse } from '../upstream/upstream-http.js';
import {
  AnswerText,
  frameEvent,
  framesObject,
  memberTest,
  nullMember,
  relayEvents,
  replaceStringMember,
  stringMember,
  stringMembers,
  withoutMember,
} from './pass-through-events.js';
import type { PassThroughStream } from './pass-through-stream.js';
import { parseJson } from '../http/parse-json.js';

export interface OpenAiChatPassThroughOptions {
  /** The model id the client asked for, which replaces the upstream's in every chunk. */
  readonly publicModel: string;
  /** Whether the client asked for the usage chunk (the gateway always asks the upstream for it). */
  readonly includeUsage: boolean;
  readonly idleMs: number;
  /** Told of the upstream's reported usage. */
  readonly onUsage: (usage: TokenUsage) => void;
}

const MODEL = stringMember('model');
const USAGE_OBJECT = memberTest('usage', '\\{');
const USAGE_NULL = nullMember('usage');
const ERROR_MEMBER = memberTest('error');
const ANSWER_TEXT = stringMembers(['content', 'arguments']);

/**
 * An OpenAI chat stream relayed to an OpenAI chat client as the upstream sent it: each event's bytes
 * go on with only the model name rewritten. The few events that need more (the usage chunk, an error,
 * a chunk without a model field) are parsed; every other chunk is never parsed, validated or
 * re-serialised. `[DONE]` is not forwarded: the client stream adds its own terminator.
 */
export const openAiChatPassThrough = (
  response: UpstreamResponse,
  options: OpenAiChatPassThroughOptions,
): PassThroughStream => {
  const publicModel = JSON.stringify(options.publicModel);
  let done = false;
  const answerText = new AnswerText(ANSWER_TEXT);

  const parsed = (data: string): ChatCompletionChunk => {
    let payload: unknown;
    try {
      payload = parseJson(data);
    } catch {
      throw upstreamBrokenResponse('a stream event was not JSON');
    }
    const error = openAiStreamError(payload);
    if (error) throw error;
    const chunk = payload as ChatCompletionChunk;
    if (!Array.isArray(chunk.choices)) throw upstreamBrokenResponse('a stream event had no choices');
    if (!openAiChunkSchema().safeParse(payload).success)
      throw upstreamBrokenResponse('a stream event was not a chat completion chunk');
    return chunk;
  };

  /** The slow path: the chunk as an object, handled as the parsed relay handles it. */
  const reserialised = (data: string): string | undefined => {
    const chunk = parsed(data);
    if (chunk.usage) options.onUsage(toTokenUsage(chunk.usage));
    if (!options.includeUsage) {
      if (chunk.choices.length === 0) return undefined;
      delete chunk.usage;
    }
    chunk.model = options.publicModel;
    return frameEvent(JSON.stringify(chunk));
  };

  const step = ({ data }: EventSourceMessage): string | undefined => {
    if (done || data === '') return undefined;
    if (data === '[DONE]') {
      done = true;
      markBodyComplete(response.body);
      return undefined;
    }
    if (!framesObject(data)) throw upstreamBrokenResponse('a stream event was not JSON');
    if (USAGE_OBJECT.test(data) || ERROR_MEMBER.test(data)) return reserialised(data);
    answerText.add(data);
    const renamed = replaceStringMember(data, MODEL, publicModel);
    if (renamed === undefined) return reserialised(data);
    const rewritten = options.includeUsage ? renamed : withoutMember(renamed, USAGE_NULL);
    return frameEvent(rewritten);
  };

  const relay = relayEvents(response.body, options.idleMs, step, {
    complete: () => done,
    unfinished: () => upstreamBrokenResponse('the stream ended before [DONE]'),
  });
  return { relay, completionText: () => answerText.text() };
};
