import { invalidValue, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler, type GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { deleteStoredDocument, getStoredDocument } from '../shared/store/responses.js';
import type { ConversationItem, StoredResponseDocument } from './responses-conversation.js';

/**
 * The stored Responses of the caller's account: `GET /v1/responses/{id}` (the Response as it was
 * returned), `DELETE /v1/responses/{id}`, and `GET /v1/responses/{id}/input_items` (the items it was
 * made from, the earlier turns' included, paged by item id). Another account's id, like an unknown,
 * deleted or expired one, is a 404.
 */

const responseNotFound = (id: string) => notFound(`Response with id '${id}' not found.`);

const storedOf = async (request: GatewayRequest<unknown>): Promise<StoredResponseDocument> => {
  const id = request.pathParameters.id ?? '';
  const stored = (await getStoredDocument(request.principal.accountId, id)) as StoredResponseDocument | undefined;
  if (!stored) throw responseNotFound(id);
  return stored;
};

/** GET and DELETE /v1/responses/{id}. */
export const storedResponse = gatewayHandler({ auth: 'user', streaming: true }, async (request) => {
  if (request.event.httpMethod === 'DELETE') {
    const id = request.pathParameters.id ?? '';
    if (!(await deleteStoredDocument(request.principal.accountId, id))) throw responseNotFound(id);
    return json(200, { id, object: 'response.deleted', deleted: true });
  }
  return json(200, (await storedOf(request)).response);
});

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

const limitOf = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_LIMIT)
    throw invalidValue(`Invalid 'limit': expected an integer from 1 to ${MAX_LIMIT}.`, 'limit');
  return limit;
};

const orderOf = (value: string | undefined): 'asc' | 'desc' => {
  if (value === undefined || value === 'desc') return 'desc';
  if (value === 'asc') return 'asc';
  throw invalidValue("Invalid 'order': expected 'asc' or 'desc'.", 'order');
};

/** An item as `input_items` lists it: a message's text as content parts, as OpenAI lists them. */
const listedItem = (item: ConversationItem): ConversationItem =>
  item.type === 'message' && typeof item.content === 'string'
    ? {
        ...item,
        content: [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }],
      }
    : item;

/** GET /v1/responses/{id}/input_items: newest first unless `order=asc`; `after` is an item id. */
export const responseInputItems = gatewayHandler({ auth: 'user', streaming: true }, async (request) => {
  const limit = limitOf(request.query.limit);
  const order = orderOf(request.query.order);
  const stored = await storedOf(request);
  const items = order === 'asc' ? stored.input : [...stored.input].reverse();
  let start = 0;
  const { after } = request.query;
  if (after !== undefined) {
    const position = items.findIndex((item) => item.id === after);
    if (position < 0) throw invalidValue(`No input item with id '${after}' in this response.`, 'after');
    start = position + 1;
  }
  const data = items.slice(start, start + limit).map(listedItem);
  return json(200, {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < items.length,
  });
});
