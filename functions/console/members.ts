import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { parseWith } from '../admin/parse-with.js';
import { consoleUserActor } from '../shared/audit/audit-actor.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { resourceId } from '../shared/config/resource-schemas.js';
import { hashPassword } from '../shared/console/local-passwords.js';
import { consoleAuthMode, type ConsoleUser } from '../shared/console/console-user.js';
import { localSessions } from '../shared/console/local-sessions.js';
import { memberView, removeMember } from '../shared/console/remove-member.js';
import { conflict, forbidden, invalidValue, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { getMember, listMembersOfAccount, memberId, putMember, type Member } from '../shared/store/members.js';
import { accountInScope, isOperator } from './authorize.js';
import { requireUser } from './console-request.js';

type Request = GatewayRequest<unknown>;

const memberPath = lazySchema(() => z.object({ id: z.email().check(z.maxLength(254)) }));
const listQuery = lazySchema(() => z.object({ accountId: z.optional(resourceId()) }));
const memberPut = lazySchema(() =>
  z.strictObject({
    role: z.enum(['member', 'account-admin', 'admin']),
    /** Local sign-in only; deployed, the user pool keeps passwords. */
    password: z.optional(z.string().check(z.minLength(8), z.maxLength(256))),
    /** Operators only: the account to act in. */
    accountId: z.optional(resourceId()),
  }),
);

/** Account admins manage their own account's members; operators any account's. Members manage nobody. */
const requireMemberManager = async (request: Request): Promise<ConsoleUser> => {
  const user = await requireUser(request);
  if (user.role === 'member') throw forbidden("Only an account admin manages the account's members.");
  return user;
};

/**
 * Whether the user may change or remove this member: an operator any; an account admin the members
 * and account admins of their own account, never an operator, and never themselves (so that an
 * account cannot be left without its admin by a slip).
 */
const mayManage = (user: ConsoleUser, member: Member): boolean =>
  isOperator(user) || (member.accountId === user.accountId && member.role !== 'admin' && member.id !== user.id);

/** GET /console/api/members?accountId=: the account's members (an operator may name any account). */
export const list = async (request: Request) => {
  const user = await requireMemberManager(request);
  const accountId = accountInScope(user, parseWith(listQuery, request.query).accountId);
  const members = await listMembersOfAccount(accountId);
  return json(200, { data: members.map(memberView) });
};

/**
 * PUT /console/api/members/{email} `{role, password?}`: adds a person to the user's account or changes
 * their role. An account admin grants `member` or `account-admin` only, and cannot take over a person
 * of another account or an operator: that is a 409 saying only that the address is taken.
 */
export const put = async (request: Request) => {
  const user = await requireMemberManager(request);
  const { id } = parseWith(memberPath, request.pathParameters);
  const { accountId: requested, ...input } = parseWith(memberPut, request.body ?? {});
  const accountId = accountInScope(user, requested);
  if (input.role === 'admin' && !isOperator(user)) throw forbidden('Only an operator grants the admin role.');
  if (input.password !== undefined && consoleAuthMode() !== 'local') {
    throw invalidValue('Passwords are kept by the user pool: the person is invited there.', 'password');
  }
  await requireAccount(accountId);
  const existing = await getMember(id);
  if (existing && !(mayManage(user, existing) && (existing.accountId === accountId || isOperator(user)))) {
    if (existing.id === user.id) throw forbidden('You cannot change your own membership; ask another account admin.');
    throw conflict('This e-mail address is already a member elsewhere; ask an operator.');
  }
  const now = new Date().toISOString();
  const member = await putMember({
    ...existing,
    id: memberId(id),
    accountId,
    role: input.role,
    passwordHash: input.password !== undefined ? await hashPassword(input.password) : (existing?.passwordHash ?? null),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
  if (input.password !== undefined) localSessions.endAllOf(member.id);
  await recordAudit(request, {
    action: 'member.put',
    actor: consoleUserActor(user),
    target: { kind: 'member', id: member.id },
  });
  return json(existing ? 200 : 201, memberView(member));
};

/**
 * DELETE /console/api/members/{email}: the person leaves the account and every key they created is
 * revoked. A member the user may not manage is "not found", as one that does not exist.
 */
export const remove = async (request: Request) => {
  const user = await requireMemberManager(request);
  const { id } = parseWith(memberPath, request.pathParameters);
  const member = await getMember(id);
  if (member?.id === user.id) throw forbidden('You cannot remove yourself; ask another account admin.');
  if (!member || !mayManage(user, member)) throw notFound(`No member '${memberId(id)}' in your account.`);
  const { keysRevoked, revokedKeyIds } = await removeMember(member);
  const actor = consoleUserActor(user);
  for (const keyId of revokedKeyIds)
    await recordAudit(request, { action: 'key.revoke', actor, target: { kind: 'key', id: keyId } });
  await recordAudit(request, { action: 'member.delete', actor, target: { kind: 'member', id: member.id } });
  return json(200, { id: member.id, deleted: true, keysRevoked });
};
