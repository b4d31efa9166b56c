import { readUsage } from '../shared/accounting/usage-query.js';
import type { UsageRecord, UsageStatus } from '../shared/accounting/usage-records.js';
import type { ConsoleUser } from '../shared/console/console-user.js';
import { getKeyById, listKeysOfAccount } from '../shared/store/keys.js';
import { requireAccount } from '../admin/accounts.js';
import { invalidValue } from '../shared/errors.js';
import { accountInScope, isOperator, mayTouchKey, requireTouchableKey, seesWholeAccount } from './authorize.js';

const DAY_MS = 86_400_000;
/** Without `from`, the console reads the last 30 days up to `to`. */
export const DEFAULT_USAGE_DAYS = 30;
/** One console query covers at most 92 days (a quarter): the store reads only the range asked for. */
export const MAX_USAGE_DAYS = 92;

/**
 * The range a console usage read covers (the usage page and the overview alike):  `to` defaults to
 * now, `from` to 30 days before `to`; never longer than 92 days, so no request reads a whole history.
 */
export const usageRangeOf = (query: { from?: string; to?: string }, now = Date.now()): { from: string; to: string } => {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - DEFAULT_USAGE_DAYS * DAY_MS : Date.parse(query.from);
  if (from > to) throw invalidValue('`from` must not be later than `to`.', 'from');
  if (to - from > MAX_USAGE_DAYS * DAY_MS)
    throw invalidValue(`A usage query covers at most ${MAX_USAGE_DAYS} days; narrow from/to.`, 'from');
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
};

/**
 * Which usage records a console user may read, decided in one place for the overview and the request
 * log: an operator any account's, or every account's when none is named; an account admin their
 * account's; a member the records of the keys they created.
 */
export interface UsageScope {
  /** Absent: every account (operators only). */
  readonly accountId: string | undefined;
  /** Only these keys (a member's own); every key in scope when absent. */
  readonly keyIds?: ReadonlySet<string>;
}

export interface UsageSelection {
  readonly accountId?: string;
  readonly keyId?: string;
  readonly model?: string;
  readonly status?: UsageStatus;
  readonly httpStatus?: number;
  readonly from: string;
  readonly to: string;
}

export const usageScopeOf = async (
  user: ConsoleUser,
  requested: string | undefined,
  keyId: string | undefined,
): Promise<UsageScope> => {
  // A key named alone decides the account (the operator's "this key, whatever its account").
  if (keyId !== undefined) {
    const key = requireTouchableKey(user, keyId, await getKeyById(keyId));
    const accountId = accountInScope(user, requested ?? key.accountId);
    if (key.accountId !== accountId) return { accountId, keyIds: new Set() };
    return { accountId };
  }
  if (requested === undefined && isOperator(user)) return { accountId: undefined };
  const accountId = (await requireAccount(accountInScope(user, requested))).id;
  if (seesWholeAccount(user)) return { accountId };
  const own = (await listKeysOfAccount(accountId)).filter((key) => mayTouchKey(user, key));
  return { accountId, keyIds: new Set(own.map((key) => key.id)) };
};

/** The records of the selection within the scope, newest first (the shared usage query, then filters). */
export const readScopedUsage = async (scope: UsageScope, selection: UsageSelection): Promise<UsageRecord[]> => {
  const records = await readUsage({
    accountId: scope.accountId,
    keyId: selection.keyId,
    model: selection.model,
    from: selection.from,
    to: selection.to,
  });
  const { keyIds } = scope;
  const { status, httpStatus } = selection;
  if (!keyIds && status === undefined && httpStatus === undefined) return records;
  return records.filter(
    (record) =>
      (!keyIds || keyIds.has(record.keyId)) &&
      (status === undefined || record.status === status) &&
      (httpStatus === undefined || record.httpStatus === httpStatus),
  );
};
