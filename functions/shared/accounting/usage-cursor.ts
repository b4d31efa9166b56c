import { createHmac, timingSafeEqual } from 'node:crypto';
import { cursorKey } from '../secrets/cursor-secret.js';

/**
 * The `cursor` of a page of the usage API or an admin list: where the next page starts (the sort key
 * of the last item returned; sort keys are unique) and a fingerprint of the query it belongs to,
 * signed so that an edited or foreign cursor is refused (400) instead of silently reading elsewhere.
 * The signature guards integrity, not secrecy: the admin who holds a cursor may read every item anyway.
 */

/** A stage's own random key from Secrets Manager; locally a fixed one (secrets/cursor-secret.ts). */
const signingKey = cursorKey;

const sign = (payload: string) => createHmac('sha256', signingKey()).update(payload).digest('base64url');

export interface CursorContent {
  /** The fingerprint of the query as asked (its filter parameters, without page size or cursor). */
  readonly query: string;
  /** The sort key of the last record returned: the next page holds older records only. */
  readonly after: string;
  /** The usage range as the first page resolved it (an absent `to` is "now" once, not on every page). */
  readonly from?: string;
  readonly to?: string;
}

export const encodeCursor = (content: CursorContent): string => {
  const payload = Buffer.from(
    JSON.stringify({ v: 1, q: content.query, a: content.after, f: content.from, t: content.to }),
  ).toString('base64url');
  return `${payload}.${sign(payload)}`;
};

/** What a cursor carries, or `undefined` when it is malformed, edited, or from another query. */
export const decodeCursor = (cursor: string, query: string): CursorContent | undefined => {
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const content = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { v, q, a, f, t } = content;
    const range = (value: unknown) => value === undefined || typeof value === 'string';
    if (v !== 1 || q !== query || typeof a !== 'string' || !range(f) || !range(t)) return undefined;
    return { query, after: a, from: f as string | undefined, to: t as string | undefined };
  } catch {
    return undefined;
  }
};
