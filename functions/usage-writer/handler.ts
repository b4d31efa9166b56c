import type { CloudWatchLogsEvent } from 'aws-lambda';
import { usagePut } from '../shared/accounting/usage-records.js';
import { log } from '../shared/log.js';
import { putMarshalled, type MarshalledPut } from '../shared/store/batched-puts.js';
import { deliveredLines } from './delivered-lines.js';
import { recordOfUsageLine } from './usage-line-record.js';

/**
 * The put of a usage line's record, or undefined for a line that is not one. The schema refuses every
 * value `usagePut` would: a throw from it is the writer's own fault, and fails the invocation.
 */
const putOfLine = (line: string): MarshalledPut | undefined => {
  const record = recordOfUsageLine(line);
  return record === undefined ? undefined : usagePut(record);
};

/**
 * The usage writer: stores the usage records that the relaying functions write to their logs
 * (usage-delivery.ts), as their log groups' subscription delivers them, up to 25 in one BatchWriteItem,
 * each as the function would have put it (`usagePut`). A record that cannot be stored fails the
 * invocation, so that Lambda runs it again (the puts are idempotent: same item, same content) and,
 * when that fails too, sends the event to the stack's dead-letter queue, from which it can be run again.
 */
export const handler = async (event: CloudWatchLogsEvent): Promise<void> => {
  const lines = deliveredLines(event);
  const puts = lines.flatMap((line) => putOfLine(line) ?? []);
  // The subscription passes only usage lines: another is reported, not retried, which cannot mend it.
  // The line itself stays in its function's log group.
  if (puts.length < lines.length)
    log.error('usage lines not read', { event: 'usage_lines_not_read', count: lines.length - puts.length });
  const outcomes = await Promise.allSettled(puts.map((put) => putMarshalled(put)));
  const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Error] : []));
  if (failures.length === 0) return;
  log.error('usage records not stored', {
    event: 'usage_records_not_stored',
    count: failures.length,
    of: puts.length,
    errorName: failures[0]!.name,
  });
  throw new Error(`${failures.length} of ${puts.length} usage records not stored`);
};
