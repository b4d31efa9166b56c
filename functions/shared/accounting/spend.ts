import { scanPage } from '../store/documents.js';
import { getAllByKeys } from '../store/get-all-by-keys.js';
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

/** Spending being summed over shards, before its rounding to what USD amounts are kept at. */
interface SpendSum {
  used: number;
  committed: number;
}

const addShard = (sum: SpendSum, item: Record<string, unknown>): void => {
  sum.used += typeof item.used === 'number' ? item.used : 0;
  sum.committed += typeof item.committed === 'number' ? item.committed : 0;
};

const rounded = (sum: SpendSum): AccountSpend => ({ used: roundUsd(sum.used), committed: roundUsd(sum.committed) });

/**
 * An account's spending summed over every shard it may have used. The shard count follows the
 * account's RPM limit, which can change, so every possible shard is read (one BatchGetItem of
 * `MAX_SHARDS` keys): an admin read, never on a request's path.
 */
export const readSpend = async (accountId: string): Promise<AccountSpend> => {
  const table = physicalTableName('spend');
  const keys = Array.from({ length: MAX_SHARDS }, (_, shard) => spendKey(accountId, shard));
  const sum: SpendSum = { used: 0, committed: 0 };
  for (const item of await getAllByKeys(table, keys)) addShard(sum, item);
  return rounded(sum);
};

/** The account a spend item belongs to: its id, less a shard's `#n`. */
const accountOf = (id: string): string => {
  const hash = id.lastIndexOf('#');
  return hash > 0 && /^\d+$/.test(id.slice(hash + 1)) ? id.slice(0, hash) : id;
};

/**
 * Every account's spending, from one read of the whole spend table: for listing accounts, where a
 * `readSpend` per account would cost a BatchGetItem of `MAX_SHARDS` keys each (a hundred reads an
 * account, found or not). The table holds only the shards accounts have used, a few small items
 * each. Read consistently, as `readSpend` reads; an account with no item has spent nothing.
 */
export const readEverySpend = async (): Promise<ReadonlyMap<string, AccountSpend>> => {
  const sums = new Map<string, SpendSum>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await retryThrottled(() =>
      scanPage({
        TableName: physicalTableName('spend'),
        ConsistentRead: true,
        ProjectionExpression: 'id, used, #committed',
        ExpressionAttributeNames: { '#committed': 'committed' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (typeof item.id !== 'string') continue;
      const account = accountOf(item.id);
      let sum = sums.get(account);
      if (!sum) sums.set(account, (sum = { used: 0, committed: 0 }));
      addShard(sum, item);
    }
    startKey = page.LastEvaluatedKey as Record<string, unknown> | undefined;
  } while (startKey);
  return new Map([...sums].map(([id, sum]) => [id, rounded(sum)]));
};
