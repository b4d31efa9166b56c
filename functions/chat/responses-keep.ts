import { log } from '../shared/log.js';
import type { ChatCompletion, ChatCompletionChunk } from '../shared/protocols/openai-chat/chat-completion-result.js';
import {
  readThinkingBlocks,
  verifiableThinking,
  type ThinkingBlock,
} from '../shared/protocols/openai-chat/thinking-blocks.js';
import type { ItemReplay } from '../shared/protocols/openai-responses/item-replay.js';
import type {
  ResponseObject,
  ResponseOutputItem,
  ResponseStreamEvent,
} from '../shared/protocols/openai-responses/responses-result.js';
import { putStoredDocument } from '../shared/store/responses.js';
import type { StoredResponseDocument } from './responses-conversation.js';
import type { ResponsesTurn } from './responses-turn.js';

/** What a chat answer carries for its next turn: signed thinking, and tool calls' provider fields by call id. */
export interface ChatReplaySink {
  readonly thinking: ThinkingBlock[];
  readonly callExtras: Map<string, ItemReplay['extra_content']>;
}

export const chatReplaySink = (): ChatReplaySink => ({ thinking: [], callExtras: new Map() });

/** Reads a whole chat answer's replay data into `sink`. */
export const readCompletionReplay = (completion: ChatCompletion, sink: ChatReplaySink): void => {
  const message = completion.choices[0]?.message;
  sink.thinking.push(...readThinkingBlocks(message?.thinking_blocks));
  for (const call of message?.tool_calls ?? [])
    if (call.extra_content) sink.callExtras.set(call.id, call.extra_content);
};

/**
 * A chat chunk stream, passed on as it is, its replay data read into `sink`. A streamed thinking
 * block's text arrives as `reasoning_content` and its signature in a block of its own that closes it.
 */
export async function* tapChatChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
  sink: ChatReplaySink,
): AsyncGenerator<ChatCompletionChunk> {
  let text = '';
  for await (const chunk of chunks) {
    const delta = chunk.choices?.[0]?.delta;
    if (delta) {
      if (typeof delta.reasoning_content === 'string') text += delta.reasoning_content;
      for (const block of readThinkingBlocks(delta.thinking_blocks)) {
        if (block.type === 'thinking') {
          sink.thinking.push({ ...block, thinking: block.thinking || text });
          text = '';
        } else sink.thinking.push(block);
      }
      for (const call of delta.tool_calls ?? []) {
        const extra = (call as { extra_content?: ItemReplay['extra_content'] }).extra_content;
        if (call.id && extra) sink.callExtras.set(call.id, extra);
      }
    }
    yield chunk;
  }
}

/**
 * A translated answer's replay data by output item: its signed thinking on the item that opens the
 * turn (its reasoning item, else its first), a tool call's provider fields on its call item.
 */
export const translatedReplay = (
  output: readonly ResponseOutputItem[],
  sink: ChatReplaySink,
): Record<string, ItemReplay> => {
  const replay: Record<string, ItemReplay> = {};
  const thinking = verifiableThinking(sink.thinking);
  const opening = output.find((item) => item.type === 'reasoning') ?? output[0];
  if (opening && thinking.length) replay[opening.id] = { thinking_blocks: thinking };
  for (const item of output) {
    const extra = 'call_id' in item ? sink.callExtras.get(item.call_id) : undefined;
    if (extra) replay[item.id] = { ...replay[item.id], extra_content: extra };
  }
  return replay;
};

/**
 * Keeps a finished response with the conversation it was made from. Resolves with the Response the
 * client receives: as it was, or saying `store: false` when the store could not keep it (the answer,
 * already paid for, still reaches the client).
 */
export const keepResponse = async (
  turn: ResponsesTurn,
  response: ResponseObject,
  replay: Readonly<Record<string, ItemReplay>>,
): Promise<ResponseObject> => {
  if (!turn.keep || !turn.conversation) return response;
  const document: StoredResponseDocument = {
    v: 1,
    response,
    input: turn.conversation.items,
    replay: { ...turn.conversation.replay, ...replay },
  };
  try {
    await putStoredDocument(turn.accountId, response.id, document);
    return response;
  } catch (error) {
    log.error('response not stored', { responseId: response.id, error: String(error) });
    return { ...response, store: false };
  }
};

const FINISHED = new Set(['response.completed', 'response.incomplete']);

/**
 * A Responses event stream whose finished response is kept before its last event goes out: a client
 * may chain the next turn the moment it reads `response.completed`.
 */
export async function* keptEvents(
  events: AsyncIterable<ResponseStreamEvent>,
  turn: ResponsesTurn,
  replayOf: (response: ResponseObject) => Record<string, ItemReplay>,
): AsyncGenerator<ResponseStreamEvent> {
  for await (const event of events) {
    if (turn.keep && FINISHED.has(event.type) && event.response && typeof event.response === 'object') {
      const response = event.response as ResponseObject;
      yield { ...event, response: await keepResponse(turn, response, replayOf(response)) };
    } else yield event;
  }
}
