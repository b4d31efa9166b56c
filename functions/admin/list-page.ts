import { decodeCursor, encodeCursor } from '../shared/accounting/usage-cursor.js';
import { invalidValue } from '../shared/errors.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { MAX_PAGE_SIZE, type ListPage } from './read-all-pages.js';
import { listView } from './views.js';

/**
 * Pages of the admin lists (accounts, keys, members): `limit` items at a time, from where `cursor`
 * says, with `nextCursor` in the answer while more remain. Without `limit` a list answers whole, as
 * it always did; with thousands of items that whole answer passes what a buffered Lambda answer may
 * carry (refused as `response_too_large`), and paging is how to read it.
 */

export const pageFields = () => ({
  limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_PAGE_SIZE))),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
});

export const pageQuery = lazySchema(() => z.object(pageFields()));

export interface PageRequest {
  readonly limit?: number;
  readonly cursor?: string;
}

/**
 * The page of `items` a request asks for. Items are kept in the order of `positionOf`, a text unique
 * per item that compares as the list is ordered; a cursor carries the position of the last item
 * returned (signed, and bound to `list` and its filters, so that an edited or foreign one is a 400),
 * so items created or deleted between pages neither repeat nor shift what follows.
 */
export const pageOf = <T>(
  items: readonly T[],
  positionOf: (item: T) => string,
  list: string,
  { limit, cursor }: PageRequest,
): ListPage<T> => {
  const positioned = items.map((item) => [positionOf(item), item] as const);
  positioned.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor, list)?.after;
    if (after === undefined) {
      throw invalidValue(
        'The cursor is not valid for this list: pass back nextCursor unchanged, with the same filters.',
        'cursor',
      );
    }
    while (start < positioned.length && positioned[start]![0] <= after) start += 1;
  }
  const end = limit === undefined ? positioned.length : Math.min(positioned.length, start + limit);
  const data = positioned.slice(start, end).map(([, item]) => item);
  if (end >= positioned.length) return { data };
  return { data, nextCursor: encodeCursor({ query: list, after: positioned[end - 1]![0] }) };
};

/** An item's position by creation: its time, then its id (creation times can be equal). */
export const byCreation = (item: { readonly createdAt: string; readonly id: string }): string =>
  `${item.createdAt} ${item.id}`;

/** A page as the admin API answers it: its items through `view`, and `nextCursor` while more remain. */
export const pageView = <T, V>(page: ListPage<T>, view: (item: T) => V) => ({
  ...listView(page.data.map(view)),
  ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
});
