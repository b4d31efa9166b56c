import { log } from '../log.js';
import type { TokenUsage } from './token-usage.js';
import { attributeJson } from '../store/attribute-values.js';
import { itemOfPut, putKey, putMarshalled, type MarshalledPut } from '../store/batched-puts.js';
import { physicalTableName, tableDefinitions } from '../store/tables.js';
import type { EndpointKind } from '../store/channels.js';
import { dayOf, partitionKey, usagePartitionOf, usageSortKey } from './usage-partitions.js';
import { USAGE_RECORD_EVENT, usageDelivery } from './usage-delivery.js';
import { redactSecrets } from '../security/redact-secrets.js';

/** How a request ended; `timeout`: the function ran out of time and ended it (function-deadline.ts). */
export const usageStatuses = ['success', 'upstream_error', 'client_aborted', 'timeout', 'error'] as const;
export type UsageStatus = (typeof usageStatuses)[number];

/** Where a record's token counts come from: the upstream's report, an estimate, or none at all. */
export const usageSources = ['upstream', 'estimate', 'none'] as const satisfies readonly (
  TokenUsage['source'] | 'none'
)[];

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
  /** Prompt tokens written to the upstream's cache, priced apart; absent on records from before it was kept. */
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens: number;
  readonly usageSource: (typeof usageSources)[number];
  readonly cost: number;
  readonly latencyMs: number;
  /** The gateway's own time up to the response head (upstream excluded), as `x-gateway-overhead-ms` said. */
  readonly overheadMs?: number;
}

const USAGE_KEY = [tableDefinitions.usage.partitionKey, tableDefinitions.usage.sortKey!];

let retentionSeconds: number | undefined;
/**
 * How long a record is kept, `GATEWAY_USAGE_RETENTION_DAYS`: read once per process, as a function's
 * environment is fixed at its start, where every record read it (a call into the runtime each time).
 */
const usageRetentionSeconds = (): number =>
  (retentionSeconds ??= Number(process.env.GATEWAY_USAGE_RETENTION_DAYS ?? 400) * 86_400);

/** What the stored item adds to its record: its keys in the table and both indexes, and its expiry. */
const itemKeys = (record: UsageRecord) => {
  const partition = usagePartitionOf(record.requestId);
  return {
    partition: partitionKey(record.accountId, partition),
    keyPartition: partitionKey(record.keyId, partition),
    dayPartition: partitionKey(dayOf(record.time), partition),
    sk: usageSortKey(record.time, record.requestId),
    expiresAt: Math.floor(Date.parse(record.time) / 1000) + usageRetentionSeconds(),
  };
};

type ItemKeys = ReturnType<typeof itemKeys>;

/** The stored item: the record plus its keys in the table and both indexes, and its expiry. */
export const usageItem = (record: UsageRecord) => ({ ...record, ...itemKeys(record) });

/** A member of the item's text: its name and attribute value, or nothing for an absent member. */
const member = (name: string, value: string | number | boolean | null | undefined): string =>
  value === undefined ? '' : `,"${name}":${attributeJson(value)}`;

/**
 * The item's attribute map as JSON, member by member: every request writes one, and serialising an
 * object of its some twenty-five attribute values took three times as long. Every member of the
 * record and of its keys is written (`usage-put.test.ts` holds the text to the general marshalling of
 * the whole item, for any record). The text is made flat at once: it waits for its batch, and a tree
 * of pieces outlived young collections with it.
 */
const usageItemJson = (record: UsageRecord, keys: ItemKeys): string => {
  const text =
    `{"requestId":${attributeJson(record.requestId)}` +
    member('time', record.time) +
    member('accountId', record.accountId) +
    member('keyId', record.keyId) +
    member('model', record.model) +
    member('channelId', record.channelId) +
    member('endpoint', record.endpoint) +
    member('stream', record.stream) +
    member('status', record.status) +
    member('httpStatus', record.httpStatus) +
    member('attempts', record.attempts) +
    member('promptTokens', record.promptTokens) +
    member('completionTokens', record.completionTokens) +
    member('totalTokens', record.totalTokens) +
    member('cachedTokens', record.cachedTokens) +
    member('cacheWriteTokens', record.cacheWriteTokens) +
    member('reasoningTokens', record.reasoningTokens) +
    member('usageSource', record.usageSource) +
    member('cost', record.cost) +
    member('latencyMs', record.latencyMs) +
    member('overheadMs', record.overheadMs) +
    member('partition', keys.partition) +
    member('keyPartition', keys.keyPartition) +
    member('dayPartition', keys.dayPartition) +
    member('sk', keys.sk) +
    member('expiresAt', keys.expiresAt) +
    '}';
  // Reading a character makes V8 flatten the text.
  text.charCodeAt(0);
  return text;
};

/**
 * The record's put, the same as `marshalledPut` of its item (`usage-put.test.ts` holds it to that): it
 * throws for a value the store would refuse (NaN, say), as that does.
 */
export const usagePut = (record: UsageRecord): MarshalledPut => {
  const keys = itemKeys(record);
  return { table: physicalTableName('usage'), key: putKey(keys, USAGE_KEY), item: usageItemJson(record, keys) };
};

/**
 * The record's log line (usage-delivery.ts): the record as plain JSON, from which the usage writer
 * makes the very put `usagePut` makes here (keys, expiry and attribute form are derived there, so the
 * line carries only the record: CloudWatch Logs bills each byte it ingests). The model id is the one
 * member an admin named rather than the gateway: it is scanned for credentials like any log field.
 */
export const usageRecordLine = (record: UsageRecord): string =>
  `{"level":"info","message":"usage record","event":"${USAGE_RECORD_EVENT}","usage":${JSON.stringify({ ...record, model: redactSecrets(record.model) })}}`;

/**
 * Delivers one request's record, as this process's delivery says (usage-delivery.ts): a log line, or
 * a put in the store (`storeUsageRecord`). The request's client is never failed for it: this runs
 * after the response.
 */
export const writeUsageRecord = (record: UsageRecord): Promise<void> => {
  if (usageDelivery() === 'store') return storeUsageRecord(record);
  log.record(usageRecordLine(record));
  return Promise.resolve();
};

/**
 * Stores one request's record, sorted by time in one of its account's partitions; gone by TTL after
 * the retention. Records of requests that end in the same loop turn share one BatchWriteItem
 * (`putMarshalled`); a throttled write is retried with jittered backoff (the put is idempotent: same
 * item, same content). A record that still cannot be stored is never dropped silently: it is written whole
 * to the error log (`usage record not stored`, with the record), from which an operator can replay it;
 * a Lambda invoked by API Gateway has no dead-letter queue, and its logs are durable.
 */
export const storeUsageRecord = (record: UsageRecord): Promise<void> => {
  let put: MarshalledPut;
  try {
    put = usagePut(record);
  } catch (error) {
    notStored(record, error);
    return Promise.resolve();
  }
  // What waits on the batch keeps the record as the put's text, which the batch holds anyway: under
  // load a record waits tens of milliseconds, and its object (some twenty members) outlived young
  // collections with it. A record that cannot be stored is read back from that text.
  return putMarshalled(put).catch((error: unknown) => notStored(recordOfItem(itemOfPut(put)), error));
};

const notStored = (record: UsageRecord, error: unknown): void =>
  log.error('usage record not stored', {
    event: 'usage_record_not_stored',
    requestId: record.requestId,
    errorName: (error as Error).name,
    usageRecord: record,
  });

/** The record a stored item holds: the item without its keys in the table and indexes, and its expiry. */
const recordOfItem = (item: Record<string, unknown>): UsageRecord => {
  const {
    partition: _partition,
    keyPartition: _key,
    dayPartition: _day,
    sk: _sort,
    expiresAt: _expiry,
    ...record
  } = item;
  return record as unknown as UsageRecord;
};
