import type { BudgetSettings } from './budget-settings.js';
import { deleteItem, getItem, putItem } from './documents.js';
import { queryAllByIndex } from './query-all.js';
import { scanAll } from './scan-all.js';
import { physicalTableName } from './tables.js';

/** What a console user may do: within one account (`member`, `account-admin`), or everything (`admin`). */
export type MemberRole = 'member' | 'account-admin' | 'admin';

/**
 * A person who signs in to the console, by e-mail address (lower case). Deployed, the Cognito user
 * pool says who they are and this record says what they may do; locally, `passwordHash` lets them sign
 * in without AWS.
 */
export interface Member {
  readonly id: string;
  readonly accountId: string;
  readonly role: MemberRole;
  /** scrypt hash (local sign-in only); never returned by any API. */
  readonly passwordHash?: string | null;
  /** The member's budget, covering the keys they created; absent or `null` for none. */
  readonly budget?: BudgetSettings | null;
  /** Console sign-ins that passed TOTP (Cognito token ids and expiry in epoch seconds); see console/mfa-sign-ins.ts. */
  readonly mfaSignIns?: readonly { readonly id: string; readonly expiresAt: number }[] | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const table = () => physicalTableName('members');

export const memberId = (email: string): string => email.trim().toLowerCase();

export const getMember = async (id: string): Promise<Member | undefined> => {
  const { Item } = await getItem({ TableName: table(), Key: { id: memberId(id) } });
  return Item as Member | undefined;
};

export const putMember = async (member: Member): Promise<Member> => {
  await putItem({ TableName: table(), Item: member });
  return member;
};

export const deleteMember = async (id: string): Promise<boolean> => {
  const { Attributes } = await deleteItem({ TableName: table(), Key: { id: memberId(id) }, ReturnValues: 'ALL_OLD' });
  return Attributes !== undefined;
};

export const listMembersOfAccount = async (accountId: string): Promise<Member[]> =>
  (await queryAllByIndex<Member>(table(), 'byAccount', 'accountId', accountId)).sort((a, b) =>
    a.id.localeCompare(b.id),
  );

export const listMembers = async (): Promise<Member[]> =>
  (await scanAll<Member>(table())).sort((a, b) => a.id.localeCompare(b.id));
