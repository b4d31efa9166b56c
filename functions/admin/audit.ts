import { decodeCursor, encodeCursor } from '../shared/accounting/usage-cursor.js';
import { auditActions } from '../shared/store/audit-entry.js';
import { auditRetainedSince } from '../shared/audit/audit-retention.js';
import { dateTime } from '../shared/config/resource-schemas.js';
import { invalidValue } from '../shared/errors.js';
import { json, type GatewayResponse } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { readAuditPage } from '../shared/store/audit-records.js';
import { parseWith } from './parse-with.js';

const auditQuery = lazySchema(() =>
  z
    .object({
      limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)), 100),
      cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
      action: z.optional(z.enum(auditActions)),
      actorId: z.optional(z.string().check(z.minLength(1), z.maxLength(320))),
      from: z.optional(dateTime()),
      to: z.optional(dateTime()),
    })
    .check(
      z.refine((query) => !query.from || !query.to || query.from <= query.to, {
        path: ['from'],
        message: "must not be after 'to'",
      }),
    ),
);

/**
 * The audit trail, newest first, as `GET /admin/v1/audit` and the console's `GET /console/api/audit`
 * answer it: `limit` records a page, `nextCursor` while older ones remain. `from` defaults to the
 * start of the retention; a cursor keeps the range its first page resolved, so records made while
 * paging do not shift the pages.
 */
export const auditResponse = async (query: Readonly<Record<string, string>> | undefined): Promise<GatewayResponse> => {
  const { limit, cursor, ...asked } = parseWith(auditQuery, query ?? {});
  const fingerprint = JSON.stringify(['audit', asked.action, asked.actorId, asked.from, asked.to]);
  const position = cursor === undefined ? undefined : decodeCursor(cursor, fingerprint);
  if (cursor !== undefined && !position) {
    throw invalidValue(
      'The cursor is not valid for this query: pass back nextCursor unchanged, with the same filters.',
      'cursor',
    );
  }
  const now = Date.now();
  const to = position?.to ?? asked.to ?? new Date(now).toISOString();
  // Records older than the retention are deleted by DynamoDB's TTL: reading back further finds none.
  const retainedSince = new Date(auditRetainedSince(now)).toISOString();
  const from = position?.from ?? (asked.from && asked.from > retainedSince ? asked.from : retainedSince);
  if (from > to) return json(200, { data: [] });
  const page = await readAuditPage({
    from,
    to,
    action: asked.action,
    actorId: asked.actorId,
    before: position?.after,
    limit,
  });
  const nextCursor = page.next ? encodeCursor({ query: fingerprint, after: page.next, from, to }) : undefined;
  return json(200, { data: page.entries, ...(nextCursor ? { nextCursor } : {}) });
};

/** GET /admin/v1/audit?limit=&cursor=&action=&actorId=&from=&to= */
export const list = ({ query }: GatewayRequest<unknown>) => auditResponse(query);
