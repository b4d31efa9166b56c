import { writeUsageRecord, type UsageRecord } from '../../functions/shared/accounting/usage-records.js';
import { captureLogLines } from '../support/captured-log-lines.js';

/**
 * A record the store would refuse before any call (a value DynamoDB cannot hold) is not dropped: it
 * goes whole to the error log, and the request that made it is not failed for it.
 */
const record: UsageRecord = {
  requestId: 'req-not-stored',
  time: '2026-11-27T12:00:00.000Z',
  accountId: 'acct_unit',
  keyId: 'key_unit',
  model: 'gpt-test',
  channelId: null,
  endpoint: 'chat',
  stream: false,
  status: 'success',
  httpStatus: 200,
  attempts: 1,
  promptTokens: 11,
  completionTokens: 7,
  totalTokens: 18,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  usageSource: 'upstream',
  cost: Number.NaN,
  latencyMs: 5,
  overheadMs: 0.5,
};

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
