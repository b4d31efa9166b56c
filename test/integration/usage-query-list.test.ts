import { queryUsage } from '../../functions/shared/accounting/usage-query.js';
import { writeUsageRecord, type UsageRecord } from '../../functions/shared/accounting/usage-records.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { usageRecordWith } from '../support/usage-record.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const record = (accountId: string, minute: number): UsageRecord =>
  usageRecordWith({
    requestId: `request-${accountId}-${minute}`,
    time: new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString(),
    accountId,
    keyId: 'key_list',
    model: 'model-a',
  });

describe('a bounded usage list', () => {
  test('holds the newest records of an account, oldest first, across its partitions, and says when more matched', async () => {
    const accountId = 'acct_list';
    await Promise.all(Array.from({ length: 12 }, (_, minute) => writeUsageRecord(record(accountId, minute))));
    const { records, truncated } = await queryUsage({ accountId, limit: 5 });
    expect(records.map((item) => item.time.slice(11, 16))).toEqual(['12:07', '12:08', '12:09', '12:10', '12:11']);
    expect(truncated).toBe(true);
    expect((await queryUsage({ accountId, limit: 12 })).truncated).toBe(false);
  });
});
