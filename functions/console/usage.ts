import { readSpend } from '../shared/accounting/spend.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { parseWith } from '../admin/parse-with.js';
import { dateTime, modelId, resourceId } from '../shared/config/resource-schemas.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { listKeysOfAccount } from '../shared/store/keys.js';
import { accountInScope, mayTouchKey, seesWholeAccount } from './authorize.js';
import { requireUser } from './console-request.js';
import { consoleUsage } from './console-usage.js';

const usageQuery = lazySchema(() =>
  z.object({
    accountId: z.optional(resourceId()),
    keyId: z.optional(resourceId()),
    model: z.optional(modelId()),
    from: z.optional(dateTime()),
    to: z.optional(dateTime()),
    groupBy: z.optional(z.enum(['model', 'account', 'key', 'day'])),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)), 50),
  }),
);

const DAY_MS = 86_400_000;
/** Without `from`, the console reads the last 30 days up to `to`. */
export const DEFAULT_USAGE_DAYS = 30;
/** One console query covers at most 92 days (a quarter): the store reads only the range asked for. */
export const MAX_USAGE_DAYS = 92;

/** The range a query reads: `to` defaults to now, `from` to 30 days before `to`; never longer than 92 days. */
const rangeOf = (query: { from?: string; to?: string }, now = Date.now()): { from: string; to: string } => {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - DEFAULT_USAGE_DAYS * DAY_MS : Date.parse(query.from);
  if (from > to) throw invalidValue('`from` must not be later than `to`.', 'from');
  if (to - from > MAX_USAGE_DAYS * DAY_MS)
    throw invalidValue(`A usage query covers at most ${MAX_USAGE_DAYS} days; narrow from/to.`, 'from');
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
};

const recordView = (record: Awaited<ReturnType<typeof consoleUsage>>['data'][number]) => ({
  requestId: record.requestId,
  time: record.time,
  accountId: record.accountId,
  keyId: record.keyId,
  model: record.model,
  endpoint: record.endpoint,
  stream: record.stream,
  status: record.status,
  httpStatus: record.httpStatus,
  promptTokens: record.promptTokens,
  completionTokens: record.completionTokens,
  totalTokens: record.totalTokens,
  cost: record.cost ?? 0,
  latencyMs: record.latencyMs,
});

/**
 * GET /console/api/usage: the admin usage contract's shape (`data` newest first, `totals`, `groups`),
 * plus the account's quota and the range read. A member sees the usage of their own keys, an account
 * admin the whole account's, an operator any account's. Only the range asked for is read (30 days by
 * default, 92 at most), never the account's whole history.
 */
export const list = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  const query = parseWith(usageQuery, request.query);
  const range = rangeOf(query);
  const account = await requireAccount(accountInScope(user, query.accountId));
  const keyIds = seesWholeAccount(user)
    ? undefined
    : new Set((await listKeysOfAccount(account.id)).filter((key) => mayTouchKey(user, key)).map((key) => key.id));
  const usage = await consoleUsage({ ...query, ...range, accountId: account.id, keyIds });
  return json(200, {
    ...range,
    data: usage.data.map(recordView),
    totals: usage.totals,
    ...(usage.groups ? { groups: usage.groups } : {}),
    truncated: usage.truncated,
    quota: { limit: account.quota.limit, used: (await readSpend(account.id)).used },
  });
};
