import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TokenUsage } from '../schemas/chat-completion-result.js';
import { store } from '../store/client.js';
import { physicalTableName } from '../store/tables.js';
import type { EndpointKind } from '../store/channels.js';

/** How a request ended, as its usage record says. */
/** How a request ended; `timeout`: the function ran out of time and ended it (function-deadline.ts). */
export type UsageStatus = 'success' | 'upstream_error' | 'client_aborted' | 'timeout' | 'error';

export interface UsageRecord {
  readonly requestId: string;
  readonly time: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly model: string;
  readonly channelId: string | null;
  readonly endpoint: EndpointKind;
  readonly stream: boolean;
  readonly status: UsageStatus;
  /** The HTTP status the client got (200 for a stream that later failed). */
  readonly httpStatus: number;
  readonly attempts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cachedTokens: number;
  readonly reasoningTokens: number;
  readonly usageSource: TokenUsage['source'] | 'none';
  readonly cost: number;
  readonly latencyMs: number;
  /** The gateway's own time up to the response head (upstream excluded), as `x-gateway-overhead-ms` said. */
  readonly overheadMs?: number;
}

const USAGE_RETENTION_DAYS = () => Number(process.env.GATEWAY_USAGE_RETENTION_DAYS ?? 400);

/** Writes one request's record; sorted by time within the account, gone by TTL after the retention. */
export const writeUsageRecord = async (record: UsageRecord): Promise<void> => {
  const expiresAt = Math.floor(Date.parse(record.time) / 1000) + USAGE_RETENTION_DAYS() * 86_400;
  await store().send(
    new PutCommand({
      TableName: physicalTableName('usage'),
      Item: { ...record, sk: `${record.time}#${record.requestId}`, expiresAt },
    }),
  );
};
