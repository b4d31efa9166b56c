import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { store } from '../store/client.js';
import { physicalTableName } from '../store/tables.js';
import { roundUsd } from './pricing.js';

/**
 * An account's USD quota lives on the account item: `quota.limit`, `quota.used` (settled spending) and
 * `quota.committed` (used plus every reservation still open). Admission reserves on `committed`;
 * settlement moves the real cost into `used` and gives the reservation back.
 */

const table = () => physicalTableName('accounts');

const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

export type QuotaReservation =
  | { readonly granted: true; readonly reserved: number }
  | { readonly granted: false; readonly limit: number; readonly committed: number };

const readQuota = async (accountId: string) => {
  const { Item } = await store().send(
    new GetCommand({ TableName: table(), Key: { id: accountId }, ConsistentRead: true, ProjectionExpression: 'quota' }),
  );
  const quota = (Item?.quota ?? {}) as { limit?: number | null; used?: number; committed?: number };
  return { limit: quota.limit ?? null, committed: quota.committed ?? quota.used ?? 0 };
};

const tryReserve = async (accountId: string, limit: number, estimate: number): Promise<boolean> => {
  if (estimate > limit) return false;
  try {
    await store().send(
      new UpdateCommand({
        TableName: table(),
        Key: { id: accountId },
        // The limit is the one this admission was decided on (a changed limit is read and retried),
        // and committed + estimate ≤ limit holds after the update, with a spent quota (committed =
        // limit) refusing even a free request. No `committed` yet means nothing was ever spent.
        ConditionExpression:
          '#quota.#limit = :limit AND (attribute_not_exists(#quota.#committed) OR ' +
          '(#quota.#committed <= :ceiling AND #quota.#committed < :limit))',
        UpdateExpression: 'SET #quota.#committed = if_not_exists(#quota.#committed, :zero) + :estimate',
        ExpressionAttributeNames: { '#quota': 'quota', '#limit': 'limit', '#committed': 'committed' },
        ExpressionAttributeValues: {
          ':limit': limit,
          ':ceiling': roundUsd(limit - estimate),
          ':estimate': estimate,
          ':zero': 0,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Reserves `estimate` USD of the account's quota if what is spent and reserved, plus it, stays within
 * the limit. `cachedLimit` is the limit the caller knows (from the cached principal); when the store
 * holds another one, the decision is made again on the stored limit, so a raised or removed limit
 * takes effect at once.
 */
export const reserveQuota = async (
  accountId: string,
  cachedLimit: number,
  estimate: number,
): Promise<QuotaReservation> => {
  if (await tryReserve(accountId, cachedLimit, estimate)) return { granted: true, reserved: estimate };
  const current = await readQuota(accountId);
  if (current.limit === null) return { granted: true, reserved: 0 };
  if (current.limit !== cachedLimit && (await tryReserve(accountId, current.limit, estimate))) {
    return { granted: true, reserved: estimate };
  }
  return { granted: false, limit: current.limit, committed: current.committed };
};

/**
 * Moves a request's real cost into `used` and closes its reservation (`committed` changes by
 * cost − reserved). Unconditional: what was spent is spent, even past the limit.
 */
export const settleQuota = async (accountId: string, reserved: number, cost: number): Promise<void> => {
  if (reserved === 0 && cost === 0) return;
  await store().send(
    new UpdateCommand({
      TableName: table(),
      Key: { id: accountId },
      ConditionExpression: 'attribute_exists(id)',
      UpdateExpression:
        'SET #quota.#used = if_not_exists(#quota.#used, :zero) + :cost, ' +
        '#quota.#committed = if_not_exists(#quota.#committed, :zero) + :delta',
      ExpressionAttributeNames: { '#quota': 'quota', '#used': 'used', '#committed': 'committed' },
      ExpressionAttributeValues: { ':cost': cost, ':delta': roundUsd(cost - reserved), ':zero': 0 },
    }),
  );
};
