import type { EventSourceMessage } from 'eventsource-parser';
import type { AnthropicUsage } from '../protocols/anthropic-messages/anthropic-messages-result.js';
import { anthropicStreamError } from '../providers/anthropic/anthropic-stream.js';
import { anthropicStreamEventSchema } from '../providers/anthropic/anthropic-api.js';
import { upstreamBrokenResponse } from '../upstream/upstream-errors.js';
import { markBodyComplete, type UpstreamResponse } from '../upstream/upstream-http.js';
import { AnswerText, frameEvent, framesObject, relayEvents, stringMembers } from './pass-through-events.js';
import type { PassThroughStream } from './pass-through-stream.js';
import { parseJson } from '../http/parse-json.js';

export interface AnthropicMessagesPassThroughOptions {
  /** The model id the client asked for, which replaces the upstream's in `message_start`. */
  readonly publicModel: string;
  readonly idleMs: number;
  /** Told of the usage reported so far, at every `message_delta`. */
  readonly onUsage: (usage: Partial<AnthropicUsage>) => void;
}

const ANSWER_TEXT = stringMembers(['text', 'partial_json', 'thinking']);

interface WireEvent {
  type?: unknown;
  message?: { model?: unknown; usage?: Record<string, unknown> | null };
  usage?: Record<string, unknown> | null;
  error?: { type?: string | null; message?: string | null };
}

const numbersOf = (usage: Record<string, unknown> | null | undefined): Partial<AnthropicUsage> =>
  Object.fromEntries(Object.entries(usage ?? {}).filter(([, value]) => typeof value === 'number'));

/** The events whose members the relay reads or changes. */
const READ_EVENTS = new Set(['message_start', 'message_delta']);

/**
 * An Anthropic Messages stream relayed to a Messages client as the upstream sent it. Only the events
 * that carry what the gateway must change or read are parsed: `message_start` (the model name, input
 * usage), `message_delta` (output usage) and `error`; the content deltas, which are nearly all of a
 * stream, go on untouched. Event types newer than the gateway go on too: the client speaks the same
 * protocol and its versioning policy asks clients to ignore what they do not know.
 */
export const anthropicMessagesPassThrough = (
  response: UpstreamResponse,
  options: AnthropicMessagesPassThroughOptions,
): PassThroughStream => {
  let stopped = false;
  let usage: Partial<AnthropicUsage> = {};
  const answerText = new AnswerText(ANSWER_TEXT);

  const parsed = (data: string): WireEvent => {
    try {
      const payload: unknown = parseJson(data);
      if (payload !== null && typeof payload === 'object') return payload as WireEvent;
    } catch {
      // reported below
    }
    throw upstreamBrokenResponse('a stream event was not JSON');
  };

  const step = ({ event, data }: EventSourceMessage): string | undefined => {
    if (stopped || data === '') return undefined;
    if (!framesObject(data)) throw upstreamBrokenResponse('a stream event was not JSON');
    switch (event) {
      case 'content_block_delta':
        answerText.add(data);
        return frameEvent(data, event);
      case 'content_block_start':
      case 'content_block_stop':
      case 'ping':
        return frameEvent(data, event);
      case 'message_stop':
        stopped = true;
        markBodyComplete(response.body);
        return frameEvent(data, event);
      default:
        break;
    }
    // The rest is parsed: events the gateway reads or changes, and any whose name is missing.
    const payload = parsed(data);
    const type = typeof payload.type === 'string' ? payload.type : event;
    if (type === undefined) throw upstreamBrokenResponse('a stream event had no type');
    if (type === 'error') throw anthropicStreamError(payload.error ?? {});
    // The events read here are held to their shapes, as the parsed relay holds every event.
    if (READ_EVENTS.has(type) && !anthropicStreamEventSchema().safeParse({ ...payload, type }).success)
      throw upstreamBrokenResponse(`a ${type} event did not have its shape`);
    if (type === 'message_start' && payload.message) {
      payload.message.model = options.publicModel;
      usage = numbersOf(payload.message.usage);
    }
    if (type === 'message_delta') {
      usage = { ...usage, ...numbersOf(payload.usage) };
      options.onUsage(usage);
    }
    if (type === 'message_stop') {
      stopped = true;
      markBodyComplete(response.body);
    }
    if (type === 'content_block_delta') answerText.add(data);
    return frameEvent(type === 'message_start' ? JSON.stringify(payload) : data, type);
  };

  const relay = relayEvents(response.body, options.idleMs, step, {
    complete: () => stopped,
    unfinished: () => upstreamBrokenResponse('the stream ended before message_stop'),
  });
  return { relay, completionText: () => answerText.text() };
};
