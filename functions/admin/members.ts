import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { hashPassword } from '../shared/console/local-passwords.js';
import { consoleAuthMode } from '../shared/console/console-user.js';
import { localSessions } from '../shared/console/local-sessions.js';
import { memberView, removeMember } from '../shared/console/remove-member.js';
import { budget, resourceId } from '../shared/config/resource-schemas.js';
import { readEverySpend } from '../shared/accounting/spend.js';
import { budgetViewFrom, readBudgetView } from './budget-spending.js';
import { invalidValue, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import {
  getMember,
  listMembers,
  listMembersOfAccount,
  memberId,
  putMember,
  type Member,
} from '../shared/store/members.js';
import { requireAccount } from './accounts.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { pageFields, pageOf, pageView } from './list-page.js';
import { parseWith } from './parse-with.js';
import { deletedView } from './views.js';

type Request = GatewayRequest<unknown>;

const memberPath = lazySchema(() => z.object({ id: z.email().check(z.maxLength(254)) }));
const memberListQuery = lazySchema(() => z.object({ accountId: z.optional(resourceId()), ...pageFields() }));
const memberPut = lazySchema(() =>
  z.strictObject({
    accountId: resourceId(),
    role: z.enum(['member', 'account-admin', 'admin']),
    /** Local sign-in only; deployed, the user pool keeps passwords. */
    password: z.optional(z.string().check(z.minLength(8), z.maxLength(256))),
    /** Covers the keys the member created; absent keeps the stored one, `null` removes it. */
    budget: z.optional(budget()),
  }),
);

const budgetOwner = (member: Member) => ({ level: 'member', ownerId: member.id, accountId: member.accountId }) as const;

/** GET /admin/v1/members?accountId=&limit=&cursor= */
export const list = async ({ query }: Request) => {
  const { accountId, ...asked } = parseWith(memberListQuery, query);
  const members = accountId ? await listMembersOfAccount(accountId) : await listMembers();
  // By e-mail address, whole or a page at a time (list-page.ts).
  const page = pageOf(members, (member) => member.id, `members ${accountId ?? ''}`, asked);
  // One read of every spend item, only when a member on the page has a budget.
  const spending = page.data.some((member) => member.budget) ? await readEverySpend() : new Map();
  return json(
    200,
    pageView(page, (member) => ({
      ...memberView(member),
      budget: budgetViewFrom(spending, member.budget, budgetOwner(member)),
    })),
  );
};

/**
 * PUT /admin/v1/members/{email}: who may sign in to the console, in which account, with which role.
 * Deployed, the person signs in through the stack's user pool with that e-mail address.
 */
export const put = async (request: Request) => {
  const { id } = parseWith(memberPath, request.pathParameters);
  const input = parseWith(memberPut, request.body ?? {});
  if (input.password !== undefined && consoleAuthMode() !== 'local') {
    throw invalidValue('Passwords are kept by the user pool: create the user there.', 'password');
  }
  await requireAccount(input.accountId);
  const existing = await getMember(id);
  const now = new Date().toISOString();
  const member = await putMember({
    ...existing,
    id: memberId(id),
    accountId: input.accountId,
    role: input.role,
    passwordHash: input.password !== undefined ? await hashPassword(input.password) : (existing?.passwordHash ?? null),
    ...(input.budget !== undefined ? { budget: input.budget } : {}),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
  // A changed password ends the sessions signed in with the old one.
  if (input.password !== undefined) localSessions.endAllOf(member.id);
  await recordAudit(request, { action: 'member.put', target: { kind: 'member', id: member.id } });
  return json(existing ? 200 : 201, {
    ...memberView(member),
    budget: await readBudgetView(member.budget, budgetOwner(member)),
  });
};

/** DELETE /admin/v1/members/{email}: the person can no longer use the console, and their keys are revoked. */
export const remove = async (request: Request) => {
  const { id } = parseWith(memberPath, request.pathParameters);
  const member = await getMember(id);
  if (!member) throw notFound(`No member '${memberId(id)}'.`);
  const { keysRevoked, revokedKeyIds } = await removeMember(member);
  for (const keyId of revokedKeyIds)
    await recordAudit(request, { action: 'key.revoke', target: { kind: 'key', id: keyId } });
  await recordAudit(request, { action: 'member.delete', target: { kind: 'member', id: member.id } });
  return json(200, { ...deletedView(member.id), keysRevoked });
};
