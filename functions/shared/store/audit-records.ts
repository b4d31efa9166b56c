import { randomBytes } from 'node:crypto';
import type { AuditAction, AuditEntry } from './audit-entry.js';
import { queryPage, putItem } from './documents.js';
import { physicalTableName } from './tables.js';

/**
 * The audit table (tables.ts). An item's partition is the month of its time (`2026-03`) and its sort
 * key the time then a random suffix (`2026-03-14T09:26:53.589Z#9f2c…`), unique and ordered by time:
 * reading a partition backwards gives its records newest first, and a time range is a key condition.
 * The `byActor` and `byAction` indexes have the same sort key, so a filtered read is one partition
 * read backwards too.
 *
 * Why a month and not a finer partition: every write of a moment goes to the one partition of that
 * moment, whatever its size, and changes are rare (an operator's edits, sign-ins, behind the admin
 * plane's throttles), far below the 1,000 writes a second one partition takes. A coarser partition
 * only makes the newest-first walk touch fewer empty partitions: a year of retention is 13 of them.
 */

interface AuditItem {
  readonly month: string;
  readonly sk: string;
  readonly at: string;
  readonly actorKind: AuditEntry['actor']['kind'];
  readonly actorId: string;
  readonly action: AuditAction;
  readonly targetKind: AuditEntry['target']['kind'];
  readonly targetId: string;
  readonly sourceIp: string | null;
  readonly requestId: string;
  readonly expiresAt: number;
}

const table = () => physicalTableName('audit');

/** The sort key's upper bound for a time: above every key of that millisecond. */
const AFTER_SUFFIX = '#~';

const monthOf = (iso: string): string => iso.slice(0, 7);

/** The month before `month` (`2026-01` → `2025-12`). */
const previousMonth = (month: string): string => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 1
    ? `${String(year - 1).padStart(4, '0')}-12`
    : `${month.slice(0, 5)}${String(number - 1).padStart(2, '0')}`;
};

/** Writes one record; `expiresAt` (epoch seconds) is when DynamoDB's TTL may delete it. */
export const putAuditRecord = async (entry: AuditEntry, expiresAt: number): Promise<void> => {
  const item: AuditItem = {
    month: monthOf(entry.at),
    sk: `${entry.at}#${randomBytes(8).toString('hex')}`,
    at: entry.at,
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    action: entry.action,
    targetKind: entry.target.kind,
    targetId: entry.target.id,
    sourceIp: entry.sourceIp,
    requestId: entry.requestId,
    expiresAt,
  };
  await putItem({ TableName: table(), Item: item });
};

export interface AuditQuery {
  /** ISO 8601 bounds, both inclusive. */
  readonly from: string;
  readonly to: string;
  readonly action?: AuditAction;
  readonly actorId?: string;
  /** Only records older than this position (a previous page's last). */
  readonly before?: string;
  readonly limit: number;
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  /** The position of the page's last record, when older ones remain. */
  readonly next?: string;
}

/** One partition to read backwards: the table's month, or an index's actor or action. */
interface Partition {
  readonly index?: 'byActor' | 'byAction';
  readonly attribute: string;
  readonly value: string;
}

const entryOf = (item: AuditItem): AuditEntry => ({
  at: item.at,
  actor: { kind: item.actorKind, id: item.actorId },
  action: item.action,
  target: { kind: item.targetKind, id: item.targetId },
  sourceIp: item.sourceIp ?? null,
  requestId: item.requestId,
});

/**
 * The partitions a query reads, newest first: an actor's or an action's index partition, or else the
 * months of the range from its end back to its start.
 */
function* partitionsOf(query: AuditQuery, upper: string): Generator<Partition> {
  if (query.actorId !== undefined) {
    yield { index: 'byActor', attribute: 'actorId', value: query.actorId };
    return;
  }
  if (query.action !== undefined) {
    yield { index: 'byAction', attribute: 'action', value: query.action };
    return;
  }
  const first = monthOf(query.from);
  for (let month = monthOf(upper); month >= first; month = previousMonth(month)) {
    yield { attribute: 'month', value: month };
  }
}

/**
 * A page of the trail, newest first: `limit` records at most, with `next` while older ones remain.
 * Each partition is read backwards within the range, one more record than asked for, so that whether
 * more remain is known without an empty last page.
 */
export const readAuditPage = async (query: AuditQuery): Promise<AuditPage> => {
  const upper = query.before ?? `${query.to}${AFTER_SUFFIX}`;
  // An action filter on an actor's partition: the actor's records are few, the filter drops the rest.
  const filterAction = query.actorId !== undefined && query.action !== undefined;
  const items: AuditItem[] = [];
  const wanted = query.limit + 1;
  for (const partition of partitionsOf(query, upper)) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await queryPage({
        TableName: table(),
        IndexName: partition.index,
        // The partition, and the sort keys within the range; the upper bound is inclusive, so a
        // cursor's own record is dropped below.
        KeyConditionExpression: '#partition = :partition AND sk BETWEEN :lower AND :upper',
        ...(filterAction ? { FilterExpression: '#action = :action' } : {}),
        ExpressionAttributeNames: {
          '#partition': partition.attribute,
          ...(filterAction ? { '#action': 'action' } : {}),
        },
        ExpressionAttributeValues: {
          ':partition': partition.value,
          ':lower': query.from,
          ':upper': upper,
          ...(filterAction ? { ':action': query.action } : {}),
        },
        ScanIndexForward: false,
        Limit: wanted - items.length + 1,
        ExclusiveStartKey: startKey,
      });
      for (const item of (page.Items ?? []) as AuditItem[]) {
        if (item.sk !== query.before && items.length < wanted) items.push(item);
      }
      startKey = items.length < wanted ? page.LastEvaluatedKey : undefined;
    } while (startKey);
    if (items.length >= wanted) break;
  }
  const entries = items.slice(0, query.limit);
  return {
    entries: entries.map(entryOf),
    ...(items.length > query.limit ? { next: entries.at(-1)!.sk } : {}),
  };
};
