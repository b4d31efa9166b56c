import type { ItemReplay } from '../shared/protocols/openai-responses/item-replay.js';
import type { ResponseObject, ResponseStreamEvent } from '../shared/protocols/openai-responses/responses-result.js';
import { itemIdFor } from './responses-conversation.js';
import { clientWantsEncryptedReasoning, type ResponsesTurn } from './responses-turn.js';

/**
 * A native upstream's Response (or its events) as the client sees it: the gateway's response id,
 * the public model, and what the gateway decided about `store` and `previous_response_id`. A kept
 * response also gets its own item ids (an upstream's may repeat from one response to the next, and
 * `input_items` pages by id), and its reasoning's encrypted content is taken aside for the next
 * turn, left in only when the client asked for it. One rewriter per upstream call: the ids it gives
 * stay the same across that call's events.
 */
export interface NativeRewriter {
  response(response: ResponseObject): ResponseObject;
  event(event: ResponseStreamEvent): ResponseStreamEvent;
  /** What the output items must carry on a later turn, by the gateway's item id. */
  readonly replay: Record<string, ItemReplay>;
}

type Item = Record<string, unknown>;

export const nativeRewriter = (turn: ResponsesTurn): NativeRewriter => {
  const { context, keep } = turn;
  const showEncrypted = clientWantsEncryptedReasoning(turn.request);
  const ids = new Map<string, string>();
  const replay: Record<string, ItemReplay> = {};

  const itemId = (upstreamId: unknown, type: unknown): unknown => {
    if (!keep || typeof upstreamId !== 'string') return upstreamId;
    let id = ids.get(upstreamId);
    if (id === undefined) {
      id = itemIdFor(typeof type === 'string' ? type : 'item', context.id, 'o', ids.size);
      ids.set(upstreamId, id);
    }
    return id;
  };

  const item = (original: Item): Item => {
    const rewritten: Item = { ...original, id: itemId(original.id, original.type) };
    if (original.type === 'reasoning' && typeof original.encrypted_content === 'string') {
      if (keep && typeof rewritten.id === 'string')
        replay[rewritten.id] = { encrypted_content: original.encrypted_content };
      if (!showEncrypted) delete rewritten.encrypted_content;
    }
    return rewritten;
  };

  const response = (original: ResponseObject): ResponseObject => ({
    ...original,
    id: context.id,
    model: context.model,
    ...(Array.isArray(original.output)
      ? { output: original.output.map((entry) => item(entry as never) as never) }
      : {}),
    store: keep,
    previous_response_id: context.previousResponseId ?? null,
  });

  const event = (original: ResponseStreamEvent): ResponseStreamEvent => {
    const rewritten: ResponseStreamEvent = { ...original };
    if (original.response && typeof original.response === 'object') {
      rewritten.response = response(original.response as ResponseObject);
    }
    if (original.item && typeof original.item === 'object') rewritten.item = item(original.item as Item);
    if (typeof original.item_id === 'string') rewritten.item_id = itemId(original.item_id, undefined);
    return rewritten;
  };

  return { response, event, replay };
};
