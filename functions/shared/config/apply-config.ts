import { hashApiKey } from '../auth/api-key.js';
import { announceDemoRetirement } from '../catalog/built-in-demo.js';
import { requireKeyForNewDestination, saveChannelKey } from '../secrets/channel-key.js';
import { createAccount, getAccount, updateAccount } from '../store/accounts.js';
import { getChannel, putChannel, type Channel } from '../store/channels.js';
import { getKeyByHash, putKey, updateKey } from '../store/keys.js';
import { accountBudget } from '../store/accounts.js';
import { unpricedWarnings } from './unpriced-warnings.js';
import { getModelSettings, putModelSettings } from '../store/models.js';
import { requireAllowedDestination } from './channel-destination.js';
import { applyMembers, requireMemberAccounts } from './apply-members.js';
import { GatewayConfigError, type ConfigAccount, type GatewayConfig } from './gateway-config-schema.js';
import { channelRecord, modelSettingsRecord, newAccountRecord, newKeyRecord } from './resource-records.js';

/** How many entries of each kind the store now holds as the file declares them. */
export interface AppliedConfig {
  readonly channels: number;
  readonly models: number;
  readonly accounts: number;
  readonly keys: number;
  readonly members: number;
  /** Budgeted accounts and members that can reach a model without a price (refused under the budget). */
  readonly warnings: readonly string[];
}

const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

/**
 * Creates a missing account, or sets on an existing one the fields the file names. Fields the file
 * leaves out (and the quota already used) keep what the admin API last set.
 */
const applyAccount = async (account: ConfigAccount): Promise<void> => {
  if (!(await getAccount(account.id))) {
    try {
      await createAccount(newAccountRecord(account.id, account));
      return;
    } catch (error) {
      // Created by another writer in the meantime: fall through to the update.
      if (!isConditionFailure(error)) throw error;
    }
  }
  await updateAccount(account.id, {
    name: account.name,
    models: account.models,
    rateLimit: account.rateLimit,
    status: account.status,
    quotaLimit: account.quota?.limit,
    budget: account.budget,
  });
};

/**
 * Registers a declared key unless its hash is already stored. An existing key is left as it is, so a
 * key revoked through the admin API stays revoked; one held by another account is a config error.
 */
const applyKey = async (account: ConfigAccount, accountIndex: number, keyIndex: number): Promise<void> => {
  const { key, ...fields } = account.keys[keyIndex]!;
  const existing = await getKeyByHash(hashApiKey(key));
  if (existing) {
    if (existing.accountId === account.id) {
      // A declared budget is brought in line; everything else about a stored key stays as it is.
      if (fields.budget !== undefined && existing.status === 'active')
        await updateKey(existing.keyHash, { budget: fields.budget });
      return;
    }
    throw new GatewayConfigError(
      `accounts[${accountIndex}].keys[${keyIndex}]: the key ${existing.prefix}… already belongs to ` +
        `account '${existing.accountId}'`,
    );
  }
  try {
    await putKey(newKeyRecord(key, account.id, fields));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Brings the store in line with a parsed config file; safe to run again and again (every start of the
 * local runtime does). Channels and model settings are replaced by id, keeping their creation time,
 * and a channel declared without `apiKey` keeps the stored one; a declared key is stored as the admin
 * API stores it (in Secrets Manager when `UPSTREAM_SECRET_PREFIX` is set); members are put as the
 * admin API puts them (apply-members.ts). Nothing the file does not mention is deleted.
 */
export const applyGatewayConfig = async (config: GatewayConfig): Promise<AppliedConfig> => {
  // Every channel's destination (host policy, key) is checked before any is written: a refused one leaves nothing half applied.
  const stored = new Map<string, Channel | undefined>();
  for (const { id, ...input } of config.channels) {
    await requireAllowedDestination(id, input.baseUrl);
    stored.set(id, await getChannel(id));
    requireKeyForNewDestination(id, input.apiKey, stored.get(id), input);
  }
  await requireMemberAccounts(config);
  const addedChannels: string[] = [];
  for (const { id, ...input } of config.channels) {
    const existing = stored.get(id);
    await putChannel(channelRecord(id, input, await saveChannelKey(id, input.apiKey, existing, input), existing));
    if (!existing) addedChannels.push(id);
  }
  await announceDemoRetirement(addedChannels);
  for (const { id, ...input } of config.models) {
    await putModelSettings(modelSettingsRecord(id, input, await getModelSettings(id)));
  }
  let keys = 0;
  const warnings: string[] = [];
  for (const [accountIndex, account] of config.accounts.entries()) {
    await applyAccount(account);
    for (const keyIndex of account.keys.keys()) await applyKey(account, accountIndex, keyIndex);
    keys += account.keys.length;
    const stored = await getAccount(account.id);
    if (stored && accountBudget(stored)) {
      warnings.push(...(await unpricedWarnings(`Account '${account.id}'`, { accountModels: stored.models })));
    }
  }
  warnings.push(...(await applyMembers(config)));
  return {
    channels: config.channels.length,
    models: config.models.length,
    accounts: config.accounts.length,
    keys,
    members: config.members.length,
    warnings,
  };
};
