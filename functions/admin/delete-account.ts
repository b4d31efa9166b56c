import { recordAudit } from '../shared/audit/record-audit.js';
import { conflict, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { deleteAccount, getAccount } from '../shared/store/accounts.js';
import { deleteKey, listKeysOfAccount } from '../shared/store/keys.js';
import { deleteMember, listMembersOfAccount } from '../shared/store/members.js';
import { localSessions } from '../shared/console/local-sessions.js';
import { parseWith } from './parse-with.js';
import { idPath } from './schemas.js';

/**
 * DELETE /admin/v1/accounts/{id}: the account, every key of it and every member of it, for good. Keys
 * and members go first, so that a deletion cut short leaves an account that a second call finishes,
 * never keys or members without an account.
 * Usage records stay (they are the history of what was spent, and expire with the usage retention);
 * rate-limit counters expire on their own. Deployed functions may accept the keys for the rest of
 * their cache lifetime, as after a revocation. The caller cannot delete the account of its own key.
 */
export const remove = async (request: GatewayRequest<unknown>) => {
  const { id } = parseWith(idPath, request.pathParameters);
  if (id === request.principal.accountId)
    throw conflict(`Account '${id}' holds the key making this request; delete it with another admin key.`);
  if (!(await getAccount(id))) throw notFound(`No account with id '${id}'.`);
  const keys = await listKeysOfAccount(id);
  for (const key of keys) await deleteKey(key.keyHash);
  const members = await listMembersOfAccount(id);
  for (const member of members) {
    await deleteMember(member.id);
    localSessions.endAllOf(member.id);
  }
  await deleteAccount(id);
  await recordAudit(request, { action: 'account.delete', target: { kind: 'account', id } });
  return json(200, { id, deleted: true, keysDeleted: keys.length, membersDeleted: members.length });
};
