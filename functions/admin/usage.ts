import { decodeCursor, encodeCursor } from '../shared/accounting/usage-cursor.js';
import { readUsage, sortKeyOf, usageGroups, usageTotals } from '../shared/accounting/usage-query.js';
import type { UsageRecord } from '../shared/accounting/usage-records.js';
import { dateTime, resourceId } from '../shared/config/resource-schemas.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { parseWith } from './parse-with.js';

const usageQuery = lazySchema(() =>
  z
    .object({
      accountId: z.optional(resourceId()),
      keyId: z.optional(resourceId()),
      model: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      from: z.optional(dateTime()),
      to: z.optional(dateTime()),
      limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(10_000)), 1000),
      cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
      groupBy: z.optional(z.enum(['model', 'account', 'key', 'day'])),
    })
    .check(
      z.refine((query) => !query.from || !query.to || query.from <= query.to, {
        path: ['from'],
        message: "must not be after 'to'",
      }),
    ),
);

/** Without account or key, an absent `from` means the last day: the `byDay` index is read day by day. */
const UNFILTERED_DEFAULT_MS = 86_400_000;
const EARLIEST = '0000-01-01T00:00:00.000Z';

const usageView = (record: UsageRecord) => ({
  requestId: record.requestId,
  time: record.time,
  accountId: record.accountId,
  keyId: record.keyId,
  model: record.model,
  channelId: record.channelId,
  endpoint: record.endpoint,
  stream: record.stream,
  status: record.status,
  httpStatus: record.httpStatus,
  attempts: record.attempts,
  promptTokens: record.promptTokens,
  completionTokens: record.completionTokens,
  totalTokens: record.totalTokens,
  cachedTokens: record.cachedTokens,
  cacheWriteTokens: record.cacheWriteTokens ?? 0,
  reasoningTokens: record.reasoningTokens,
  usageSource: record.usageSource,
  cost: record.cost ?? 0,
  latencyMs: record.latencyMs,
  overheadMs: record.overheadMs ?? null,
});

/**
 * GET /admin/v1/usage?accountId=&keyId=&model=&from=&to=&limit=&cursor=&groupBy=: records newest
 * first, `limit` a page, `nextCursor` while more remain; `totals` (and `groups` with `groupBy`) over
 * the whole query, never just the page. A cursor keeps the range its first page resolved, so the
 * totals do not move while paging. Account and key queries read their partitions; a query with
 * neither reads the day index (by default the last day, at most 31 days). See docs/scale.md.
 */
export const list = async ({ query }: GatewayRequest<unknown>) => {
  const { limit, cursor, groupBy, ...asked } = parseWith(usageQuery, query ?? {});
  const fingerprint = JSON.stringify([asked.accountId, asked.keyId, asked.model, asked.from, asked.to, groupBy]);
  const position = cursor === undefined ? undefined : decodeCursor(cursor, fingerprint);
  if (cursor !== undefined && !position) {
    throw invalidValue(
      'The cursor is not valid for this query: pass back nextCursor unchanged, with the same filters.',
      'cursor',
    );
  }
  const to = position?.to ?? asked.to ?? new Date().toISOString();
  const filtered = asked.accountId !== undefined || asked.keyId !== undefined;
  const from =
    position?.from ??
    asked.from ??
    (filtered ? EARLIEST : new Date(Date.parse(to) - UNFILTERED_DEFAULT_MS).toISOString());
  if (from > to) throw invalidValue('from must not be later than to.', 'from');

  const records = await readUsage({ ...asked, from, to });
  const after = position?.after;
  const remaining = after === undefined ? records : records.filter((record) => sortKeyOf(record) < after);
  const page = remaining.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    remaining.length > limit && last
      ? encodeCursor({ query: fingerprint, after: sortKeyOf(last), from, to })
      : undefined;
  return json(200, {
    data: page.map(usageView),
    ...(nextCursor ? { nextCursor } : {}),
    totals: usageTotals(records),
    ...(groupBy ? { groups: usageGroups(records, groupBy) } : {}),
  });
};
