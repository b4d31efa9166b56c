import { batchGetItems } from '../store/documents.js';
import { physicalTableName } from '../store/tables.js';
import { retryThrottled } from '../store/throttle-retry.js';
import { roundUsd } from './pricing.js';
import { MAX_SHARDS } from './shard-count.js';

/** Shard 0 is keyed by the account id itself; shard n > 0 by `<account id>#n`. */
export const spendKey = (accountId: string, shard: number): { id: string } => ({
  id: shard === 0 ? accountId : `${accountId}#${shard}`,
});

export interface AccountSpend {
  /** Settled spending, USD. */
  readonly used: number;
  /** Spending plus open reservations, USD. */
  readonly committed: number;
}

/**
 * An account's spending summed over every shard it may have used. The shard count follows the
 * account's RPM limit, which can change, so every possible shard is read (one BatchGetItem of
 * `MAX_SHARDS` keys): an admin read, never on a request's path.
 */
export const readSpend = async (accountId: string): Promise<AccountSpend> => {
  const table = physicalTableName('spend');
  let keys: Record<string, unknown>[] = Array.from({ length: MAX_SHARDS }, (_, shard) => spendKey(accountId, shard));
  let used = 0;
  let committed = 0;
  while (keys.length > 0) {
    const request = keys;
    const answer = await retryThrottled(() =>
      batchGetItems({ RequestItems: { [table]: { Keys: request, ConsistentRead: true } } }),
    );
    for (const item of answer.Responses?.[table] ?? []) {
      used += typeof item.used === 'number' ? item.used : 0;
      committed += typeof item.committed === 'number' ? item.committed : 0;
    }
    keys = (answer.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
  }
  return { used: roundUsd(used), committed: roundUsd(committed) };
};
