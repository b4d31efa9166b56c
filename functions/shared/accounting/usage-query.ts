import { QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { store } from '../store/client.js';
import { physicalTableName } from '../store/tables.js';
import type { UsageRecord } from './usage-records.js';

export interface UsageFilter {
  readonly accountId?: string;
  readonly keyId?: string;
  /** ISO-8601 (UTC, `…Z`), inclusive. */
  readonly from?: string;
  /** ISO-8601 (UTC, `…Z`), inclusive. */
  readonly to?: string;
  /** At most this many records (newest last); `truncated` says when more matched. */
  readonly limit: number;
}

export interface UsageTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

export interface UsagePage {
  readonly records: UsageRecord[];
  readonly truncated: boolean;
}

// Sort keys are `<ISO time>#<request id>`: the earliest and latest keys a time range can hold.
const FIRST = '0000-01-01T00:00:00.000Z';
const AFTER_ANY_REQUEST_ID = '#\uffff';

const timeRange = (filter: UsageFilter) => ({
  ':from': filter.from ?? FIRST,
  ':to': `${filter.to ?? '9999-12-31T23:59:59.999Z'}${AFTER_ANY_REQUEST_ID}`,
});

/**
 * How the filter is read: by account (the table's key, sort key range on time), by key (the `byKey`
 * index), or, with neither, a scan with a filter on time, which reads the whole table: fine for an
 * administrator's occasional look, not for a dashboard.
 */
const readInput = (filter: UsageFilter): QueryCommandInput | ScanCommandInput => {
  const TableName = physicalTableName('usage');
  if (filter.accountId) {
    const byKey = filter.keyId ? ' AND keyId = :keyId' : '';
    return {
      TableName,
      KeyConditionExpression: 'accountId = :accountId AND sk BETWEEN :from AND :to',
      ...(byKey ? { FilterExpression: 'keyId = :keyId' } : {}),
      ExpressionAttributeValues: {
        ':accountId': filter.accountId,
        ...timeRange(filter),
        ...(filter.keyId ? { ':keyId': filter.keyId } : {}),
      },
    };
  }
  if (filter.keyId) {
    return {
      TableName,
      IndexName: 'byKey',
      KeyConditionExpression: 'keyId = :keyId AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':keyId': filter.keyId, ...timeRange(filter) },
    };
  }
  return { TableName, FilterExpression: 'sk BETWEEN :from AND :to', ExpressionAttributeValues: timeRange(filter) };
};

/** Usage records matching the filter, oldest first. */
export const queryUsage = async (filter: UsageFilter): Promise<UsagePage> => {
  const input = readInput(filter);
  const isQuery = 'KeyConditionExpression' in input && input.KeyConditionExpression !== undefined;
  const records: UsageRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store().send(
      isQuery
        ? new QueryCommand({ ...(input as QueryCommandInput), ExclusiveStartKey: startKey })
        : new ScanCommand({ ...(input as ScanCommandInput), ExclusiveStartKey: startKey }),
    );
    records.push(...((page.Items ?? []) as UsageRecord[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey && records.length <= filter.limit);
  // A scan returns table order: put every answer in time order.
  records.sort((a, b) => a.time.localeCompare(b.time) || a.requestId.localeCompare(b.requestId));
  const truncated = records.length > filter.limit || startKey !== undefined;
  return { records: records.slice(0, filter.limit), truncated };
};

export const usageTotals = (records: readonly UsageRecord[]): UsageTotals => {
  let cost = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let totalTokens = 0;
  for (const record of records) {
    cost += record.cost ?? 0;
    promptTokens += record.promptTokens;
    completionTokens += record.completionTokens;
    totalTokens += record.totalTokens;
  }
  return { requests: records.length, promptTokens, completionTokens, totalTokens, cost: Math.round(cost * 1e12) / 1e12 };
};
