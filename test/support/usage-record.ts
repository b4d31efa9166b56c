import type { UsageRecord } from '../../functions/shared/accounting/usage-records.js';

/** A successful one-token-each usage record, for suites that write records themselves; override what matters. */
export const usageRecordWith = (
  overrides: Partial<UsageRecord> & Pick<UsageRecord, 'requestId' | 'accountId'>,
): UsageRecord => ({
  time: new Date().toISOString(),
  keyId: 'key_test',
  model: 'demo-1',
  channelId: null,
  endpoint: 'chat',
  stream: false,
  status: 'success',
  httpStatus: 200,
  attempts: 1,
  promptTokens: 1,
  completionTokens: 1,
  totalTokens: 2,
  cachedTokens: 0,
  reasoningTokens: 0,
  usageSource: 'upstream',
  cost: 0,
  latencyMs: 1,
  ...overrides,
});
