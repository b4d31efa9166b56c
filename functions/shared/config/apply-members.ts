import { unpricedWarnings } from './unpriced-warnings.js';
import { getAccount } from '../store/accounts.js';
import { getMember, putMember } from '../store/members.js';
import { GatewayConfigError, type GatewayConfig, type ConfigMember } from './gateway-config-schema.js';

/**
 * The members a config file declares (`members: [{ id, accountId, role, budget? }]`): who may sign in
 * to the console, in which account and role, and the budget covering the keys they create. A member
 * is put as the admin API puts one, keeping what the file cannot say (a local password, MFA
 * sign-ins, when they were added); a member already as declared is not written again.
 */

const sameBudget = (left: unknown, right: unknown) => JSON.stringify(left ?? null) === JSON.stringify(right ?? null);

/**
 * Fails, before anything is written, on a member of an account that neither the file nor the store
 * has: a member must belong to an account.
 */
export const requireMemberAccounts = async (config: GatewayConfig): Promise<void> => {
  const declared = new Set(config.accounts.map((account) => account.id));
  for (const [index, member] of config.members.entries()) {
    if (declared.has(member.accountId) || (await getAccount(member.accountId))) continue;
    throw new GatewayConfigError(
      `members[${index}]: no account '${member.accountId}' in the file or the gateway (give an account's id)`,
    );
  }
};

const applyMember = async (member: ConfigMember): Promise<void> => {
  const existing = await getMember(member.id);
  const budget = member.budget === undefined ? existing?.budget : member.budget;
  if (
    existing &&
    existing.accountId === member.accountId &&
    existing.role === member.role &&
    sameBudget(existing.budget, budget)
  )
    return;
  const now = new Date().toISOString();
  await putMember({
    ...existing,
    id: member.id,
    accountId: member.accountId,
    role: member.role,
    passwordHash: existing?.passwordHash ?? null,
    ...(budget === undefined ? {} : { budget }),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
};

/** Puts every declared member; returns the warnings of budgeted members who can reach an unpriced model. */
export const applyMembers = async (config: GatewayConfig): Promise<string[]> => {
  const warnings: string[] = [];
  for (const member of config.members) {
    await applyMember(member);
    if (!member.budget) continue;
    const account = await getAccount(member.accountId);
    warnings.push(...(await unpricedWarnings(`Member '${member.id}'`, { accountModels: account?.models ?? null })));
  }
  return warnings;
};
