import { readSpend } from '../shared/accounting/spend.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { parseWith } from '../admin/parse-with.js';
import { dateTime, modelId, resourceId } from '../shared/config/resource-schemas.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { listKeysOfAccount } from '../shared/store/keys.js';
import { accountInScope, mayTouchKey, seesWholeAccount } from './authorize.js';
import { requireUser } from './console-request.js';
import { usageRangeOf } from './usage-scope.js';
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
  const range = usageRangeOf(query);
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
