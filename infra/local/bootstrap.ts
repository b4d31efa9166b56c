import { generateApiKey, hashApiKey, keyPrefix, looksLikeApiKey, newId } from '../../functions/shared/auth/api-key.js';
import { createAccount, getAccount } from '../../functions/shared/store/accounts.js';
import { listChannels, putChannel } from '../../functions/shared/store/channels.js';
import { getKeyByHash, putKey } from '../../functions/shared/store/keys.js';

/** The account that holds the administrators' keys. */
export const ADMIN_ACCOUNT_ID = 'acct_admin';

const ensureAdminAccount = async (): Promise<boolean> => {
  if (await getAccount(ADMIN_ACCOUNT_ID)) return false;
  const now = new Date().toISOString();
  await createAccount({
    id: ADMIN_ACCOUNT_ID,
    name: 'Administrators',
    models: null,
    quota: { limit: null, used: 0 },
    rateLimit: null,
    status: 'active',
    createdAt: now,
    updatedAt: now,
  });
  return true;
};

const registerAdminKey = async (key: string, name: string) => {
  const keyHash = hashApiKey(key);
  if (await getKeyByHash(keyHash)) return;
  await putKey({
    keyHash,
    id: newId('key'),
    prefix: keyPrefix(key),
    accountId: ADMIN_ACCOUNT_ID,
    name,
    role: 'admin',
    status: 'active',
    expiresAt: null,
    models: null,
    rateLimit: null,
    createdAt: new Date().toISOString(),
  });
};

export interface AdminKeyBootstrap {
  /** The key given in the environment, or the one created now; `undefined` when an earlier start made it. */
  readonly key: string | undefined;
  readonly created: boolean;
}

/**
 * With `GATEWAY_ADMIN_KEY`, registers that key as an admin key. Without it, the first start on a store
 * creates an admin key and returns it to be printed once; later starts find the admin account and
 * leave it alone.
 */
export const bootstrapAdminKey = async (configuredKey: string | undefined): Promise<AdminKeyBootstrap> => {
  if (configuredKey !== undefined) {
    if (!looksLikeApiKey(configuredKey)) {
      throw new Error('GATEWAY_ADMIN_KEY must look like sk- followed by at least 20 letters or digits.');
    }
    await ensureAdminAccount();
    await registerAdminKey(configuredKey, 'GATEWAY_ADMIN_KEY');
    return { key: configuredKey, created: false };
  }
  if (!(await ensureAdminAccount())) return { key: undefined, created: false };
  const { key } = generateApiKey();
  await registerAdminKey(key, 'bootstrap');
  return { key, created: true };
};

/** The built-in `demo` channel serving `demo-1`, so the first request works offline. */
export const ensureDemoChannel = async (): Promise<boolean> => {
  if ((await listChannels()).length > 0) return false;
  const now = new Date().toISOString();
  await putChannel({
    id: 'demo',
    type: 'demo',
    baseUrl: null,
    models: ['demo-1'],
    modelMap: {},
    endpoints: null,
    priority: 0,
    weight: 1,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  });
  return true;
};
