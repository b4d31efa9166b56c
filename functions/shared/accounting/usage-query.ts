import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { invalidValue } from '../errors.js';
import { putsSettled } from '../store/batched-puts.js';
import { queryPage } from '../store/documents.js';
import { physicalTableName } from '../store/tables.js';
import { retryThrottled } from '../store/throttle-retry.js';
import { allPartitionKeys, dayOf } from './usage-partitions.js';
import type { UsageRecord } from './usage-records.js';
import { roundUsd } from './pricing.js';

/** What a usage query selects; `from` and `to` are ISO-8601 UTC (`…Z`), inclusive, already resolved. */
export interface UsageFilter {
  readonly accountId?: string;
  readonly keyId?: string;
  readonly model?: string;
  readonly from: string;
  readonly to: string;
}

export type UsageGroupBy = 'model' | 'account' | 'key' | 'day';

export interface UsageTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

/**
 * How much one request may read to answer a usage query (totals cover the whole query, so the whole
 * range is read). A query over more records is refused with a 400 asking for a narrower range.
 */
export const MAX_RECORDS_PER_QUERY = 50_000;

/** A query with neither account nor key reads the `byDay` index one day at a time: at most this many days. */
export const MAX_UNFILTERED_DAYS = 31;

const DAY_MS = 86_400_000;

/** Where the records are: the table by account, the `byKey` index by key, or the `byDay` index by day. */
interface Source {
  readonly indexName?: string;
  readonly partitionAttribute: string;
  /** Owners of the partitions to read (an account, a key, or every day of the range). */
  readonly owners: readonly string[];
  /** Filters on attributes that are not part of the source's key. */
  readonly filters: readonly (readonly [attribute: string, value: string])[];
}

const daysOf = (from: string, to: string): string[] => {
  const days: string[] = [];
  for (let time = Date.parse(`${dayOf(from)}T00:00:00.000Z`); time <= Date.parse(to); time += DAY_MS) {
    days.push(dayOf(new Date(time).toISOString()));
  }
  return days;
};

const sourceOf = (filter: UsageFilter): Source => {
  const modelFilter = filter.model ? [['model', filter.model] as const] : [];
  if (filter.accountId) {
    return {
      partitionAttribute: 'partition',
      owners: [filter.accountId],
      filters: [...(filter.keyId ? [['keyId', filter.keyId] as const] : []), ...modelFilter],
    };
  }
  if (filter.keyId) {
    return { indexName: 'byKey', partitionAttribute: 'keyPartition', owners: [filter.keyId], filters: modelFilter };
  }
  const days = daysOf(filter.from, filter.to);
  if (days.length > MAX_UNFILTERED_DAYS) {
    throw invalidValue(
      `Without accountId or keyId, a usage query covers at most ${MAX_UNFILTERED_DAYS} days; narrow from/to.`,
      'from',
    );
  }
  return { indexName: 'byDay', partitionAttribute: 'dayPartition', owners: days, filters: modelFilter };
};

// Sort keys are `<ISO time>#<request id>`: the range's first key, and a key after any of its last millisecond.
const AFTER_ANY_REQUEST_ID = '#\uffff';

const queryInput = (source: Source, filter: UsageFilter, partition: string): QueryCommandInput => {
  const names: Record<string, string> = { '#partition': source.partitionAttribute, '#sk': 'sk' };
  const values: Record<string, unknown> = {
    ':partition': partition,
    ':from': filter.from,
    ':to': `${filter.to}${AFTER_ANY_REQUEST_ID}`,
  };
  const conditions = source.filters.map(([attribute, value], index) => {
    names[`#f${index}`] = attribute;
    values[`:f${index}`] = value;
    return `#f${index} = :f${index}`;
  });
  return {
    TableName: physicalTableName('usage'),
    ...(source.indexName ? { IndexName: source.indexName } : {}),
    KeyConditionExpression: '#partition = :partition AND #sk BETWEEN :from AND :to',
    ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

const tooMany = () =>
  invalidValue(
    `This usage query matches more than ${MAX_RECORDS_PER_QUERY} records; narrow it with from/to, keyId or model.`,
    'from',
  );

/** Every record of one partition in the range, page by page, within the shared budget. */
const readPartition = async (input: QueryCommandInput, into: UsageRecord[]): Promise<void> => {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await retryThrottled(() => queryPage({ ...input, ExclusiveStartKey: startKey }));
    into.push(...((page.Items ?? []) as UsageRecord[]));
    if (into.length > MAX_RECORDS_PER_QUERY) throw tooMany();
    startKey = page.LastEvaluatedKey;
  } while (startKey);
};

/**
 * Every record the filter selects, newest first. Account and key queries read their partitions of
 * the table or the `byKey` index; a query with neither reads the `byDay` index for each day of the
 * range (at most `MAX_UNFILTERED_DAYS`). No scan. At most `MAX_RECORDS_PER_QUERY` records, or a 400.
 */
export const readUsage = async (filter: UsageFilter): Promise<UsageRecord[]> => {
  // Records this process still holds first: where the admin API and the relaying functions share a
  // process (the local runtime), a read then sees every request the process has answered.
  await putsSettled();
  const source = sourceOf(filter);
  const records: UsageRecord[] = [];
  for (const owner of source.owners) {
    await Promise.all(
      allPartitionKeys(owner).map((partition) => readPartition(queryInput(source, filter, partition), records)),
    );
  }
  return records.sort((a, b) => sortKeyOf(b).localeCompare(sortKeyOf(a)));
};

/** The record's position in newest-first order (its sort key). */
export const sortKeyOf = (record: UsageRecord): string => `${record.time}#${record.requestId}`;

const emptyTotals = (): { -readonly [K in keyof UsageTotals]: number } => ({
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cost: 0,
});

const add = (totals: ReturnType<typeof emptyTotals>, record: UsageRecord) => {
  totals.requests += 1;
  totals.promptTokens += record.promptTokens;
  totals.completionTokens += record.completionTokens;
  totals.totalTokens += record.totalTokens;
  totals.cost += record.cost ?? 0;
};

const rounded = (totals: ReturnType<typeof emptyTotals>): UsageTotals => ({ ...totals, cost: roundUsd(totals.cost) });

export const usageTotals = (records: readonly UsageRecord[]): UsageTotals => {
  const totals = emptyTotals();
  for (const record of records) add(totals, record);
  return rounded(totals);
};

/** The field a group is named by in the answer, for each `groupBy`. */
const groupFields = { model: 'model', account: 'accountId', key: 'keyId', day: 'day' } as const;

const groupValue = (record: UsageRecord, groupBy: UsageGroupBy): string =>
  groupBy === 'day'
    ? dayOf(record.time)
    : groupBy === 'model'
      ? record.model
      : groupBy === 'account'
        ? record.accountId
        : record.keyId;

export type UsageGroup = UsageTotals & Partial<Record<(typeof groupFields)[UsageGroupBy], string>>;

/** Totals per model, account, key or UTC day; days newest first, the others by cost, then name. */
export const usageGroups = (records: readonly UsageRecord[], groupBy: UsageGroupBy): UsageGroup[] => {
  const groups = new Map<string, ReturnType<typeof emptyTotals>>();
  for (const record of records) {
    const value = groupValue(record, groupBy);
    let totals = groups.get(value);
    if (!totals) groups.set(value, (totals = emptyTotals()));
    add(totals, record);
  }
  const entries = [...groups.entries()].map(([value, totals]) => ({ value, totals: rounded(totals) }));
  entries.sort((a, b) =>
    groupBy === 'day'
      ? b.value.localeCompare(a.value)
      : b.totals.cost - a.totals.cost || a.value.localeCompare(b.value),
  );
  return entries.map(({ value, totals }) => ({ [groupFields[groupBy]]: value, ...totals }));
};

/** A filter whose range may be open: absent `from` and `to` read from the first record to now. */
export interface OpenUsageFilter extends Partial<UsageFilter> {
  /** At most this many records, the newest; `truncated` says when more matched. */
  readonly limit: number;
}

const EARLIEST = '0000-01-01T00:00:00.000Z';

/**
 * One bounded list for callers that sum records themselves: the newest `limit` records of the
 * filter, oldest first, and whether more matched. Without account or key it reads the last day.
 */
export const queryUsage = async (filter: OpenUsageFilter): Promise<{ records: UsageRecord[]; truncated: boolean }> => {
  const to = filter.to ?? new Date().toISOString();
  const from =
    filter.from ?? (filter.accountId || filter.keyId ? EARLIEST : new Date(Date.parse(to) - DAY_MS).toISOString());
  const newestFirst = await readUsage({
    accountId: filter.accountId,
    keyId: filter.keyId,
    model: filter.model,
    from,
    to,
  });
  return { records: newestFirst.slice(0, filter.limit).reverse(), truncated: newestFirst.length > filter.limit };
};
