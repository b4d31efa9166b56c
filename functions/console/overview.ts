import { usageGroups, usageTotals, type UsageGroup } from '../shared/accounting/usage-query.js';
import type { UsageRecord } from '../shared/accounting/usage-records.js';
import { dateTime, modelId, resourceId } from '../shared/config/resource-schemas.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { getAccount, listAccounts, type Account } from '../shared/store/accounts.js';
import { listKeysOfAccount, type ApiKeyRecord } from '../shared/store/keys.js';
import { parseWith } from '../admin/parse-with.js';
import { requireUser } from './console-request.js';
import { readScopedUsage, usageRangeOf, usageScopeOf } from './usage-scope.js';

const overviewQuery = lazySchema(() =>
  z.object({
    accountId: z.optional(resourceId()),
    keyId: z.optional(resourceId()),
    model: z.optional(modelId()),
    from: z.optional(dateTime()),
    to: z.optional(dateTime()),
  }),
);

/** Names for the ids the groups hold: accounts and keys, as the pages show them. */
const namesOf = async (accountIds: readonly string[], everyAccount: boolean) => {
  const accounts: Account[] = everyAccount
    ? await listAccounts()
    : ((await Promise.all(accountIds.map(getAccount))).filter(Boolean) as Account[]);
  const keys: ApiKeyRecord[] = (await Promise.all(accountIds.map(listKeysOfAccount))).flat();
  return {
    accounts: new Map(accounts.map((account) => [account.id, account])),
    keys: new Map(keys.map((key) => [key.id, key])),
  };
};

/**
 * GET /console/api/overview?accountId=&keyId=&model=&from=&to=: requests, tokens and cost over the
 * range (the last 30 days by default), in total and per day, account, model and key, with the names
 * of accounts and keys beside their ids. The money is summed from the usage records themselves, as
 * the admin usage API sums it, so every page's figures agree with the records whatever the account's
 * budget. Scope as `usage-scope.ts` decides; an operator naming no account sees every account (the
 * day index, at most 31 days).
 */
export const overview = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  const query = parseWith(overviewQuery, request.query);
  const { from, to } = usageRangeOf(query);
  const scope = await usageScopeOf(user, query.accountId, query.keyId);
  const records: UsageRecord[] = await readScopedUsage(scope, { ...query, from, to });
  const byAccount = usageGroups(records, 'account');
  const names = await namesOf(
    byAccount.map((group) => group.accountId!),
    scope.accountId === undefined,
  );
  const accountName = (id: string | undefined) => (id ? (names.accounts.get(id)?.name ?? null) : null);
  return json(200, {
    range: { from, to },
    accountId: scope.accountId ?? null,
    totals: usageTotals(records),
    byDay: usageGroups(records, 'day'),
    byAccount: byAccount.map((group) => ({ ...group, accountName: accountName(group.accountId) })),
    byModel: usageGroups(records, 'model'),
    byKey: usageGroups(records, 'key').map((group: UsageGroup) => {
      const key = names.keys.get(group.keyId!);
      return {
        ...group,
        keyName: key?.name ?? null,
        keyPrefix: key?.prefix ?? null,
        owner: key?.owner ?? null,
        accountId: key?.accountId ?? null,
        accountName: accountName(key?.accountId),
      };
    }),
  });
};
