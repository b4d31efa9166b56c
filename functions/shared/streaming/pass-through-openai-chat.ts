import type { EventSourceMessage } from 'eventsource-parser';
import { openAiUsageSchema } from '../providers/openai/openai-api.js';
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
  frameRenamed,
  stringMember,
  stringMembers,
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
    // The usage is all the relay reads of a chunk; the rest goes on as sent, as in every other event.
    if (chunk.usage != null && !openAiUsageSchema().safeParse(chunk.usage).success)
      throw upstreamBrokenResponse('a stream event had a usage that was not token counts');
    return chunk;
  };

  /**
   * The slow path: the chunk read as an object, handled as the parsed relay handles it. A chunk the
   * client gets whole (its usage asked for) still goes on as sent, only renamed, where it can.
   */
  const reserialised = (data: string): string | undefined => {
    const chunk = parsed(data);
    if (chunk.usage) options.onUsage(toTokenUsage(chunk.usage));
    if (!options.includeUsage) {
      if (chunk.choices.length === 0) return undefined;
      delete chunk.usage;
    } else {
      const renamed = frameRenamed(data, MODEL, publicModel);
      if (renamed !== undefined) return renamed;
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
    // Every chunk but the last ends with `"usage":null` (the gateway asks for usage): it holds none,
    // which its ending says in a third of the usage scan's time.
    if ((!data.endsWith(USAGE_NULL.last) && USAGE_OBJECT.test(data)) || ERROR_MEMBER.test(data))
      return reserialised(data);
    answerText.add(data);
    return frameRenamed(data, MODEL, publicModel, options.includeUsage ? undefined : USAGE_NULL) ?? reserialised(data);
  };

  const relay = relayEvents(response.body, options.idleMs, step, {
    complete: () => done,
    unfinished: () => upstreamBrokenResponse('the stream ended before [DONE]'),
  });
  return { relay, completionText: () => answerText.text() };
};
