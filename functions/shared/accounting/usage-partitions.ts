/**
 * Where a usage record lives. One busy account writes one record per request; a single partition
 * key per account (and per key in the `byKey` index, per day in the `byDay` index) would take all of
 * them and throttle near 1,000 requests per second. Each record goes to one of `USAGE_PARTITIONS`
 * partitions instead, picked from its request id (so a retried write lands on the same item), and a
 * query reads all partitions and merges them by sort key.
 *
 * The count is fixed for the life of the table: records are read back from exactly these partitions.
 * 32 partitions hold one account at 10,000 requests per second to ~310 writes per second per key.
 */
export const USAGE_PARTITIONS = 32;

/** FNV-1a over the request id: cheap, stable and evenly spread. */
export const usagePartitionOf = (requestId: string): number => {
  let hash = 0x811c9dc5;
  for (let index = 0; index < requestId.length; index += 1) {
    hash ^= requestId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % USAGE_PARTITIONS;
};

/** `<owner>#<partition>`: an account's, a key's or a day's partition key. */
export const partitionKey = (owner: string, partition: number): string => `${owner}#${partition}`;

/** Every partition key of an owner. */
export const allPartitionKeys = (owner: string): string[] =>
  Array.from({ length: USAGE_PARTITIONS }, (_, partition) => partitionKey(owner, partition));

/** The UTC day of an ISO time: the owner of the `byDay` index's partitions. */
export const dayOf = (isoTime: string): string => isoTime.slice(0, 10);

/** Sort keys are `<ISO time>#<request id>`: globally unique, ordered by time. */
export const usageSortKey = (time: string, requestId: string): string => `${time}#${requestId}`;
