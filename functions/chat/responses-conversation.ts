import { randomBase62 } from '../shared/auth/api-key.js';
import { invalidValue } from '../shared/errors.js';
import type { ItemReplay, ReplayLookup } from '../shared/protocols/openai-responses/item-replay.js';
import type { ResponsesRequest } from '../shared/protocols/openai-responses/responses-request.js';
import type { ResponseObject } from '../shared/protocols/openai-responses/responses-result.js';
import { getStoredDocument } from '../shared/store/responses.js';

/**
 * The conversation a Responses request continues, rebuilt from the gateway's own store: every item of
 * the stored response's input, its output, then the request's own input, each with an id (as
 * `input_items` lists them). The upstream always receives the whole of it, so any channel can serve
 * any turn.
 */

/** One item of a conversation: as the client or the upstream wrote it, with the id the gateway gave it. */
export type ConversationItem = Record<string, unknown> & { readonly id: string; readonly type: string };

/** What the store keeps for one response. */
export interface StoredResponseDocument {
  readonly v: 1;
  /** The Response as the client received it. */
  readonly response: ResponseObject;
  /** Every item the response was made from, in order. */
  readonly input: ConversationItem[];
  /** Replay data of the input and output items, by item id (never shown to the client). */
  readonly replay: Record<string, ItemReplay>;
}

export interface Conversation {
  /** The stored response continued, or `null` for a first turn. */
  readonly previousResponseId: string | null;
  readonly items: ConversationItem[];
  readonly replay: Record<string, ItemReplay>;
}

/**
 * The largest conversation (its items as JSON) the gateway keeps: its compressed parts then fit the
 * store's reads and the function's memory comfortably. A longer one is refused before any upstream
 * is called; `store: false` lifts the limit (but not the request body's own).
 */
export const MAX_CONVERSATION_BYTES = 16 * 1024 * 1024;

/** A fresh response id: `resp_` and 40 random base62 characters (about 238 bits), whatever the upstream said. */
export const newResponseId = (): string => `resp_${randomBase62(40)}`;

const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  reasoning: 'rs',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
};

/** The id of an item the gateway names: its type's prefix, the response's own suffix, a tag and a counter. */
export const itemIdFor = (type: string, responseId: string, tag: string, index: number): string =>
  `${ID_PREFIXES[type] ?? 'item'}_${responseId.replace(/^resp_/, '')}${tag}${index}`;

/**
 * The request's own input as conversation items, each with an id: a client's id is kept when the
 * conversation has no item of that id yet, the others are named after the response.
 */
export const inputItems = (
  input: ResponsesRequest['input'],
  responseId: string,
  taken: ReadonlySet<string>,
): ConversationItem[] => {
  if (input === undefined) return [];
  const raw: Record<string, unknown>[] =
    typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : (input as never);
  const used = new Set(taken);
  return raw.map((item, index) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const given = typeof item.id === 'string' && item.id && !used.has(item.id) ? item.id : undefined;
    const id = given ?? itemIdFor(type, responseId, 'i', index);
    used.add(id);
    return { ...item, id, type } as ConversationItem;
  });
};

const unknownPrevious = (id: string) =>
  invalidValue(`Previous response with id '${id}' not found.`, 'previous_response_id');

/**
 * The conversation a request makes: the stored one it continues (a 400 naming `previous_response_id`
 * when there is none for this account) followed by its own input.
 */
export const conversationOf = async (
  request: ResponsesRequest,
  accountId: string,
  responseId: string,
): Promise<Conversation> => {
  const previousId = request.previous_response_id ?? null;
  let earlier: ConversationItem[] = [];
  let replay: Record<string, ItemReplay> = {};
  if (previousId) {
    const stored = (await getStoredDocument(accountId, previousId)) as StoredResponseDocument | undefined;
    if (!stored) throw unknownPrevious(previousId);
    earlier = [...stored.input, ...(stored.response.output as unknown as ConversationItem[])];
    replay = { ...stored.replay };
  }
  const taken = new Set(earlier.map((item) => item.id));
  return {
    previousResponseId: previousId,
    items: [...earlier, ...inputItems(request.input, responseId, taken)],
    replay,
  };
};

/** Refuses a conversation too long to keep, naming its size and the limit. */
export const checkStorable = (conversation: Conversation): void => {
  const bytes = Buffer.byteLength(JSON.stringify(conversation.items));
  if (bytes > MAX_CONVERSATION_BYTES) {
    throw invalidValue(
      `The conversation is ${bytes} bytes, more than the ${MAX_CONVERSATION_BYTES} bytes the gateway stores. Start a new conversation, or send it with \`store: false\`.`,
      conversation.previousResponseId ? 'previous_response_id' : 'input',
    );
  }
};

/** The replay data of a conversation's items, by id. */
export const replayLookup =
  (replay: Readonly<Record<string, ItemReplay>>): ReplayLookup =>
  (item) =>
    typeof item.id === 'string' && Object.hasOwn(replay, item.id) ? replay[item.id] : undefined;

/**
 * The conversation as a native Responses upstream takes it with `store: false`: without the gateway's
 * ids (the upstream never saw them), reasoning items with their encrypted content, and reasoning it
 * cannot read (another vendor's) left out.
 */
export const nativeInput = (conversation: Conversation): Record<string, unknown>[] =>
  conversation.items.flatMap((item) => {
    const { id, ...rest } = item;
    if (item.type !== 'reasoning') return [rest];
    const encrypted = conversation.replay[id]?.encrypted_content ?? rest.encrypted_content;
    return typeof encrypted === 'string' && encrypted ? [{ ...rest, encrypted_content: encrypted }] : [];
  });
