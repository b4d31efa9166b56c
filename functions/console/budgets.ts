import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { readBudgetView, type BudgetOwner } from '../admin/budget-spending.js';
import { parseWith } from '../admin/parse-with.js';
import type { BudgetView } from '../shared/accounting/budgets.js';
import { consoleUserActor } from '../shared/audit/audit-actor.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { accountBudget } from '../shared/store/accounts.js';
import { budget, resourceId } from '../shared/config/resource-schemas.js';
import type { ConsoleUser } from '../shared/console/console-user.js';
import { conflict, forbidden, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { getKeyById, listKeysOfAccount, updateKey, type ApiKeyRecord } from '../shared/store/keys.js';
import { getMember, listMembersOfAccount, memberId, putMember } from '../shared/store/members.js';
import { accountInScope, isOperator, mayTouchKey, seesWholeAccount } from './authorize.js';
import { requireUser } from './console-request.js';

/**
 * The console's budgets (DESIGN §11): each person sees the budgets that cover them (their account's,
 * their own as a member, their keys'); account admins also see and set the budgets of the account's
 * keys and members; operators do so in any account (an account's own budget is set through the admin
 * API, which only operators reach). Every rule is checked here, whatever the page offers.
 */

type Request = GatewayRequest<unknown>;

const listQuery = lazySchema(() => z.object({ accountId: z.optional(resourceId()) }));
const budgetPath = lazySchema(() =>
  z.object({ level: z.enum(['key', 'member']), id: z.string().check(z.minLength(1), z.maxLength(254)) }),
);
const budgetPut = lazySchema(() => z.strictObject({ budget: budget() }));

interface Budgeted {
  readonly level: 'account' | 'member' | 'key';
  readonly id: string;
  /** A readable name: the account's, the key's name or prefix, the member's address. */
  readonly label: string;
  readonly budget: BudgetView | null;
}

const keyLabel = (key: ApiKeyRecord) => key.name ?? `${key.prefix}…`;

const keyBudget = async (key: ApiKeyRecord): Promise<Budgeted & { owner: string | null; prefix: string }> => ({
  level: 'key',
  id: key.id,
  label: keyLabel(key),
  owner: key.owner ?? null,
  prefix: key.prefix,
  budget: await readBudgetView(key.budget, { level: 'key', ownerId: key.id, accountId: key.accountId }),
});

/** Whether the user sets budgets of keys and members in their account (an account admin, an operator). */
const setsBudgets = (user: ConsoleUser) => seesWholeAccount(user);

/**
 * GET /console/api/budgets?accountId=: `mine`, the budgets that cover the signed-in person; for
 * those who set budgets, `keys` and `members` of the account with theirs.
 */
export const list = async (request: Request) => {
  const user = await requireUser(request);
  const accountId = accountInScope(user, parseWith(listQuery, request.query).accountId);
  const account = await requireAccount(accountId);
  const [keys, member] = await Promise.all([
    listKeysOfAccount(accountId).then((all) => all.filter((key) => key.status === 'active' && mayTouchKey(user, key))),
    accountId === user.accountId ? getMember(user.id) : undefined,
  ]);
  const keyBudgets = await Promise.all(keys.map(keyBudget));
  const owner = (level: BudgetOwner['level'], ownerId: string): BudgetOwner => ({ level, ownerId, accountId });
  const mine: Budgeted[] = [
    {
      level: 'account' as const,
      id: account.id,
      label: account.name,
      budget: await readBudgetView(accountBudget(account), owner('account', account.id)),
    },
    ...(member
      ? [
          {
            level: 'member' as const,
            id: member.id,
            label: member.id,
            budget: await readBudgetView(member.budget, owner('member', member.id)),
          },
        ]
      : []),
    ...keyBudgets.filter((key) => key.owner === user.id),
  ].filter((entry) => entry.budget !== null);
  if (!setsBudgets(user)) return json(200, { accountId, mine, keys: null, members: null });
  const members = await listMembersOfAccount(accountId);
  return json(200, {
    accountId,
    mine,
    keys: keyBudgets,
    members: await Promise.all(
      members.map(async (each) => ({
        level: 'member' as const,
        id: each.id,
        label: each.id,
        role: each.role,
        budget: await readBudgetView(each.budget, owner('member', each.id)),
      })),
    ),
  });
};

/**
 * PUT /console/api/budgets/{key|member}/{id} `{budget}`: sets (or with `null` removes) the budget of
 * a key or a member of the user's account. Account admins and operators only; an account admin never
 * sets an operator's budget or that of an admin-role key. What the user may not touch is "not found".
 */
export const put = async (request: Request) => {
  const user = await requireUser(request);
  if (!setsBudgets(user)) throw forbidden('Only an account admin sets budgets of keys and members.');
  const { level, id } = parseWith(budgetPath, request.pathParameters);
  const { budget: settings } = parseWith(budgetPut, request.body ?? {});
  const actor = consoleUserActor(user);
  if (level === 'key') {
    const key = await getKeyById(id);
    if (!key || !mayTouchKey(user, key)) throw notFound(`No key with id '${id}'.`);
    if (key.status === 'revoked') throw conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`);
    const updated = await updateKey(key.keyHash, { budget: settings });
    if (!updated) throw conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`);
    await recordAudit(request, { action: 'key.update', actor, target: { kind: 'key', id: key.id } });
    return json(200, await keyBudget(updated));
  }
  const member = await getMember(id);
  if (!member || !(isOperator(user) || (member.accountId === user.accountId && member.role !== 'admin')))
    throw notFound(`No member '${memberId(id)}' in your account.`);
  const updated = await putMember({ ...member, budget: settings, updatedAt: new Date().toISOString() });
  await recordAudit(request, { action: 'member.put', actor, target: { kind: 'member', id: member.id } });
  return json(200, {
    level: 'member',
    id: updated.id,
    label: updated.id,
    role: updated.role,
    budget: await readBudgetView(updated.budget, {
      level: 'member',
      ownerId: updated.id,
      accountId: updated.accountId,
    }),
  });
};
