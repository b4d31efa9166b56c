import { listKeysOfAccount, revokeKey } from '../store/keys.js';
import { deleteMember, memberId, type Member } from '../store/members.js';
import { localSessions } from './local-sessions.js';

/**
 * Removes a person from the console, the one way both the admin API and the console do it: their
 * record goes, their open local sessions end, and every active key they created in their account is
 * revoked (a removed person's keys must not keep working; nobody else is made their owner). Keys go
 * first, so that a removal cut short is finished by a second call. Returns the ids of the keys it
 * revoked (each is a `key.revoke` in the audit trail).
 */
export const removeMember = async (member: Member): Promise<{ keysRevoked: number; revokedKeyIds: string[] }> => {
  const owned = (await listKeysOfAccount(member.accountId)).filter(
    (key) => key.owner === member.id && key.status === 'active',
  );
  for (const key of owned) await revokeKey(key.keyHash);
  await deleteMember(member.id);
  localSessions.endAllOf(memberId(member.id));
  return { keysRevoked: owned.length, revokedKeyIds: owned.map((key) => key.id) };
};

/** What any API shows of a member: never the password hash, never the MFA sign-ins. */
export const memberView = (member: Member) => ({
  id: member.id,
  accountId: member.accountId,
  role: member.role,
  hasLocalPassword: Boolean(member.passwordHash),
  createdAt: member.createdAt,
  updatedAt: member.updatedAt,
});
