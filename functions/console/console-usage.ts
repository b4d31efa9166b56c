import { queryUsage, usageTotals, type UsageTotals } from '../shared/accounting/usage-query.js';
import type { UsageRecord } from '../shared/accounting/usage-records.js';

/** How usage is summed for the charts. */
export type UsageGrouping = 'model' | 'account' | 'key' | 'day';

export interface ConsoleUsageFilter {
  readonly accountId: string;
  readonly keyId?: string;
  readonly model?: string;
  readonly from?: string;
  readonly to?: string;
  /** Only these keys' records (a member's own keys); every key of the account when absent. */
  readonly keyIds?: ReadonlySet<string>;
  readonly groupBy?: UsageGrouping;
  /** How many of the latest records to return. */
  readonly limit: number;
}

export type UsageGroup = Record<string, string | number>;

export interface ConsoleUsage {
  /** The latest records, newest first. */
  readonly data: UsageRecord[];
  readonly totals: UsageTotals;
  readonly groups?: UsageGroup[];
  /** More records matched than were read: totals and groups cover the newest `READ_LIMIT`. */
  readonly truncated: boolean;
}

/** The most records one console query sums. */
const READ_LIMIT = 10_000;

const groupKey = (record: UsageRecord, grouping: UsageGrouping): string => {
  switch (grouping) {
    case 'model':
      return record.model;
    case 'account':
      return record.accountId;
    case 'key':
      return record.keyId;
    case 'day':
      return record.time.slice(0, 10);
    default: {
      const unreachable: never = grouping;
      throw new Error(`unknown grouping ${String(unreachable)}`);
    }
  }
};

const groupField: Readonly<Record<UsageGrouping, string>> = {
  model: 'model',
  account: 'accountId',
  key: 'keyId',
  day: 'day',
};

const groupRecords = (records: readonly UsageRecord[], grouping: UsageGrouping): UsageGroup[] => {
  const byKey = new Map<string, UsageRecord[]>();
  for (const record of records) {
    const key = groupKey(record, grouping);
    const list = byKey.get(key);
    if (list) list.push(record);
    else byKey.set(key, [record]);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, list]) => ({ [groupField[grouping]]: key, ...usageTotals(list) }));
};

/**
 * The console's one way into the usage store: the shared usage query (the admin API's), narrowed to
 * what the caller may see, with the totals and groups the charts draw. When the shared query learns to
 * group and page by itself, this is the one place to hand that work over.
 */
export const consoleUsage = async (filter: ConsoleUsageFilter): Promise<ConsoleUsage> => {
  const page = await queryUsage({
    accountId: filter.accountId,
    keyId: filter.keyId,
    from: filter.from,
    to: filter.to,
    limit: READ_LIMIT,
  });
  const records = page.records.filter(
    (record) => (!filter.model || record.model === filter.model) && (!filter.keyIds || filter.keyIds.has(record.keyId)),
  );
  const newestFirst = records.reverse();
  return {
    data: newestFirst.slice(0, filter.limit),
    totals: usageTotals(records),
    ...(filter.groupBy ? { groups: groupRecords(records, filter.groupBy) } : {}),
    truncated: page.truncated,
  };
};
