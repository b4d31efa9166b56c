import { writeUsageRecord } from '../../functions/shared/accounting/usage-records.js';
import { captureLogLines } from '../support/captured-log-lines.js';
import { usageRecordWith } from '../support/usage-record.js';

/**
 * A record the store would refuse before any call (a value DynamoDB cannot hold) is not dropped: it
 * goes whole to the error log, and the request that made it is not failed for it.
 */
// Every member set, the optional ones included, so that the log line is seen to hold them all.
const record = usageRecordWith({
  requestId: 'req-not-stored',
  accountId: 'acct_unit',
  cacheWriteTokens: 0,
  cost: Number.NaN,
  overheadMs: 0.5,
});

test('a record the store cannot hold is written whole to the error log, and the write still settles', async () => {
  const log = captureLogLines('error');
  try {
    await expect(writeUsageRecord(record)).resolves.toBeUndefined();
    const lines = log.lines.filter((line) => line.message === 'usage record not stored');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: 'usage_record_not_stored', requestId: record.requestId });
    // NaN goes through JSON as null: every other member is the record's own.
    expect(lines[0]!.usageRecord).toEqual({ ...record, cost: null });
  } finally {
    log.restore();
  }
});
