import { decodeCursor, encodeCursor } from '../shared/accounting/usage-cursor.js';
import { sortKeyOf } from '../shared/accounting/usage-query.js';
import type { UsageRecord } from '../shared/accounting/usage-records.js';
import { dateTime, modelId, resourceId } from '../shared/config/resource-schemas.js';
import { invalidValue } from '../shared/errors.js';
import { json, type GatewayResponse } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { parseWith } from '../admin/parse-with.js';
import { requireUser } from './console-request.js';
import { readScopedUsage, usageScopeOf } from './usage-scope.js';

const DAY_MS = 86_400_000;

const requestsQuery = lazySchema(() =>
  z.object({
    accountId: z.optional(resourceId()),
    keyId: z.optional(resourceId()),
    model: z.optional(modelId()),
    status: z.optional(z.enum(['success', 'upstream_error', 'client_aborted', 'timeout', 'error'])),
    httpStatus: z.optional(z.coerce.number().check(z.int(), z.gte(100), z.lte(599))),
    from: z.optional(dateTime()),
    to: z.optional(dateTime()),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(5000)), 50),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
    format: z._default(z.enum(['json', 'csv']), 'json'),
  }),
);

/** The columns of the log, in the order of the CSV export. */
const columns = [
  'time',
  'requestId',
  'accountId',
  'keyId',
  'model',
  'channelId',
  'endpoint',
  'stream',
  'status',
  'httpStatus',
  'attempts',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'cachedTokens',
  'reasoningTokens',
  'cost',
  'latencyMs',
] as const satisfies readonly (keyof UsageRecord)[];

const rowOf = (record: UsageRecord) =>
  Object.fromEntries(columns.map((column) => [column, record[column] ?? (column === 'cost' ? 0 : null)]));

/**
 * A CSV field: quoted when it holds a separator, a quote or a line break; a text that a spreadsheet
 * would run as a formula (`=`, `+`, `-`, `@` first) is prefixed with `'`. Numbers go as they are.
 */
const csvField = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const csvOf = (records: readonly UsageRecord[]): string =>
  [columns.join(','), ...records.map((record) => columns.map((column) => csvField(rowOf(record)[column])).join(','))]
    .join('\r\n')
    .concat('\r\n');

/**
 * GET /console/api/requests?accountId=&keyId=&model=&status=&httpStatus=&from=&to=&limit=&cursor=&format=:
 * the request log, newest first, a page at a time (`nextCursor` while more remain; the cursor keeps
 * the range its first page resolved). `format=csv` answers the same page as CSV, its next cursor in
 * the `x-next-cursor` header. Without an account (operators) the range is at most 31 days, by
 * default the last day; with one, everything by default. Scope as `usage-scope.ts` decides.
 */
export const list = async (request: GatewayRequest<unknown>): Promise<GatewayResponse> => {
  const user = await requireUser(request);
  const { limit, cursor, format, ...asked } = parseWith(requestsQuery, request.query);
  const scope = await usageScopeOf(user, asked.accountId, asked.keyId);
  const fingerprint = JSON.stringify([
    user.id,
    scope.accountId,
    asked.keyId,
    asked.model,
    asked.status,
    asked.httpStatus,
    asked.from,
    asked.to,
  ]);
  const position = cursor === undefined ? undefined : decodeCursor(cursor, fingerprint);
  if (cursor !== undefined && !position)
    throw invalidValue('The cursor is not valid for this query: pass back nextCursor with the same filters.', 'cursor');
  const to = position?.to ?? asked.to ?? new Date().toISOString();
  const from =
    position?.from ??
    asked.from ??
    (scope.accountId === undefined ? new Date(Date.parse(to) - DAY_MS).toISOString() : '0000-01-01T00:00:00.000Z');
  if (from > to) throw invalidValue('from must not be later than to.', 'from');
  const records = await readScopedUsage(scope, { ...asked, from, to });
  const after = position?.after;
  const remaining = after === undefined ? records : records.filter((record) => sortKeyOf(record) < after);
  const page = remaining.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    remaining.length > limit && last
      ? encodeCursor({ query: fingerprint, after: sortKeyOf(last), from, to })
      : undefined;
  if (format === 'csv') {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="requests.csv"',
        'cache-control': 'no-store',
        ...(nextCursor ? { 'x-next-cursor': nextCursor } : {}),
      },
      body: csvOf(page),
    };
  }
  return json(200, { data: page.map(rowOf), ...(nextCursor ? { nextCursor } : {}), range: { from, to } });
};
