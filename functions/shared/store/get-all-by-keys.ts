import { batchGetItems } from './documents.js';
import {
  BOOKKEEPING_RETRY,
  JITTERED_BACKOFF,
  jitteredDelay,
  retryThrottled,
  UnprocessedError,
  type Backoff,
} from './throttle-retry.js';

/**
 * Items of one table by key, in one BatchGetItem of up to 100 keys, read strongly consistent (a
 * budget's shards, an account's spend). Under throttling the store answers with some keys left in
 * `UnprocessedKeys`; those are asked for again after the same full-jitter backoff the batched writes
 * wait (`batched-puts.ts`), up to the bookkeeping attempts, after which the read fails as throttled
 * (a caller on a client's path answers that with a 429). Without the cap a store that kept
 * refusing would be asked again at once, forever, with the request waiting on it.
 *
 * Returns the items found, in no particular order; a key with no item has none.
 */
export const getAllByKeys = async (
  table: string,
  keys: readonly Record<string, unknown>[],
  backoff: Backoff = JITTERED_BACKOFF,
): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > 1) {
      if (attempt > BOOKKEEPING_RETRY.attempts) throw new UnprocessedError(`${pending.length} keys left unprocessed`);
      await backoff.pause(jitteredDelay(attempt - 1, BOOKKEEPING_RETRY, backoff.random));
    }
    const request = pending as Record<string, unknown>[];
    const answer = await retryThrottled(
      () => batchGetItems({ RequestItems: { [table]: { Keys: request, ConsistentRead: true } } }),
      BOOKKEEPING_RETRY,
      backoff,
    );
    for (const item of answer.Responses?.[table] ?? []) found.push(item);
    pending = (answer.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
  }
  return found;
};
