import fc from 'fast-check';
import { usageItem, usagePut, type UsageRecord } from '../../functions/shared/accounting/usage-records.js';
import { marshalledPut } from '../../functions/shared/store/batched-puts.js';
import { physicalTableName, tableDefinitions } from '../../functions/shared/store/tables.js';

/**
 * A usage record's put is written from the record by a path of its own (every request makes one): it
 * must be the put the general path makes of the record's item, for any record, or be refused alike.
 */

const KEY_NAMES = [tableDefinitions.usage.partitionKey, tableDefinitions.usage.sortKey!];

const outcome = (put: () => ReturnType<typeof usagePut>) => {
  try {
    const { table, key, item } = put();
    return { table, key, item: JSON.parse(item) as unknown };
  } catch {
    return { refused: true };
  }
};

const general = (record: UsageRecord) =>
  outcome(() => marshalledPut({ table: physicalTableName('usage'), item: usageItem(record), keyNames: KEY_NAMES }));

const text = fc.string({ unit: 'binary', maxLength: 40 });
const count = fc.oneof(
  fc.nat(),
  fc.double(),
  fc.constantFrom(0, -0, 0.1 + 0.2, 2 ** 53, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY),
);
const time = fc.oneof(
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  text,
);

const record: fc.Arbitrary<UsageRecord> = fc.record(
  {
    requestId: text,
    time,
    accountId: text,
    keyId: text,
    model: text,
    channelId: fc.option(text, { nil: null }),
    endpoint: fc.constantFrom('chat', 'embeddings', 'images', 'audio'),
    stream: fc.boolean(),
    status: fc.constantFrom('success', 'upstream_error', 'client_aborted', 'timeout', 'error'),
    httpStatus: count,
    attempts: count,
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    cachedTokens: count,
    cacheWriteTokens: count,
    reasoningTokens: count,
    usageSource: fc.constantFrom('upstream', 'estimate', 'none'),
    cost: count,
    latencyMs: count,
    overheadMs: count,
  },
  { requiredKeys: ['requestId', 'time', 'accountId', 'keyId', 'model', 'channelId', 'endpoint', 'stream', 'status'] },
) as fc.Arbitrary<UsageRecord>;

describe("a usage record's put", () => {
  it('is the put of its item by the general path, or refused alike, for any record', () => {
    fc.assert(
      fc.property(record, (usage) => {
        expect(outcome(() => usagePut(usage))).toEqual(general(usage));
      }),
      { numRuns: 2000 },
    );
  });

  it('holds every member of a whole record, with its keys and expiry', () => {
    const usage: UsageRecord = {
      requestId: 'req-1',
      time: '2026-11-27T10:00:00.000Z',
      accountId: 'acct_1',
      keyId: 'key_1',
      model: 'gpt "quoted" \\ model',
      channelId: null,
      endpoint: 'chat',
      stream: true,
      status: 'success',
      httpStatus: 200,
      attempts: 2,
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
      cachedTokens: 3,
      cacheWriteTokens: 1,
      reasoningTokens: 4,
      usageSource: 'upstream',
      cost: 0.0000123,
      latencyMs: 14.83,
      overheadMs: 0.12,
    };
    const { item } = outcome(() => usagePut(usage)) as { item: Record<string, unknown> };
    expect(Object.keys(item).sort()).toEqual(Object.keys(usageItem(usage)).sort());
    expect(item).toMatchObject({ channelId: { NULL: true }, stream: { BOOL: true }, cost: { N: '0.0000123' } });
    // Kept 400 days by default (GATEWAY_USAGE_RETENTION_DAYS), counted from the record's time.
    expect(item.expiresAt).toEqual({ N: String(Date.parse(usage.time) / 1000 + 400 * 86_400) });
    expect(outcome(() => usagePut(usage))).toEqual(general(usage));
  });
});
