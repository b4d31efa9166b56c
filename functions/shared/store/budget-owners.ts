import type { Account } from './accounts.js';
import { batchGetItems } from './documents.js';
import type { Member } from './members.js';
import { physicalTableName } from './tables.js';
import { retryThrottled } from './throttle-retry.js';

/**
 * A key's account and the member who created it, in one BatchGetItem: both may hold a budget that
 * covers the key's requests, and loading a key's principal reads them together.
 */
export const getAccountAndMember = async (
  accountId: string,
  memberId: string,
): Promise<{ account: Account | undefined; member: Member | undefined }> => {
  const accounts = physicalTableName('accounts');
  const members = physicalTableName('members');
  let pending: Record<string, { Keys: Record<string, unknown>[] }> = {
    [accounts]: { Keys: [{ id: accountId }] },
    [members]: { Keys: [{ id: memberId.trim().toLowerCase() }] },
  };
  let account: Account | undefined;
  let member: Member | undefined;
  while (Object.keys(pending).length > 0) {
    const request = pending;
    const answer = await retryThrottled(() => batchGetItems({ RequestItems: request }));
    account ??= answer.Responses?.[accounts]?.[0] as Account | undefined;
    member ??= answer.Responses?.[members]?.[0] as Member | undefined;
    pending = (answer.UnprocessedKeys ?? {}) as typeof pending;
  }
  return { account, member };
};
