import type { TestGateway } from './test-gateway.js';

/**
 * One account that a whole company sends through: limits sized for 10,000 requests per second, a
 * quota, and a priced model, and a key that a member created, with a monthly budget of its own and
 * one of the member's, so that every request writes every kind of bookkeeping (request and token
 * windows of key and account, the spend of all three budgets, usage record and its indexes).
 */
export const HOT_ACCOUNT = {
  requestsPerSecond: 10_000,
  rpm: 600_000,
  tpm: 300_000_000,
  quotaUsd: 1_000_000,
  keyBudgetUsd: 100_000,
  memberBudgetUsd: 500_000,
  member: 'hot-member@example.com',
  model: 'hot-model',
} as const;

/** A channel on `upstreamBaseUrl` serving the hot model, the model's price, and the account with a limited key. */
export const setUpHotAccount = async (
  gateway: TestGateway,
  upstreamBaseUrl: string,
): Promise<{ key: string; accountId: string }> => {
  const channel = await gateway.admin('PUT', '/admin/v1/channels/hot-upstream', {
    type: 'openai',
    baseUrl: upstreamBaseUrl,
    models: [HOT_ACCOUNT.model],
  });
  if (channel.status !== 200) throw new Error(`channel setup failed: ${channel.text}`);
  await gateway.admin('PUT', `/admin/v1/models/${HOT_ACCOUNT.model}`, {
    pricing: { inputPerMTok: 1, outputPerMTok: 2 },
  });
  const limits = { rpm: HOT_ACCOUNT.rpm, tpm: HOT_ACCOUNT.tpm };
  const created = await gateway.admin('POST', '/admin/v1/accounts', {
    name: 'hot account',
    quota: { limit: HOT_ACCOUNT.quotaUsd },
    rateLimit: limits,
  });
  if (created.status !== 201) throw new Error(`account setup failed: ${created.text}`);
  const accountId = created.body.id as string;
  // The key is the member's (created in the console, which records its creator): their budget covers it.
  const password = 'hot-member-password';
  const member = await gateway.admin('PUT', `/admin/v1/members/${HOT_ACCOUNT.member}`, {
    accountId,
    role: 'member',
    password,
    budget: { limitUsd: HOT_ACCOUNT.memberBudgetUsd, period: 'month' },
  });
  if (member.status !== 201) throw new Error(`member setup failed: ${member.text}`);
  const session = await gateway.request('POST', '/console/api/session', {
    body: { email: HOT_ACCOUNT.member, password },
  });
  const issued = await gateway.request('POST', '/console/api/keys', {
    key: session.body.token as string,
    body: { name: 'hot key' },
  });
  if (issued.status !== 201) throw new Error(`key setup failed: ${issued.text}`);
  const limited = await gateway.admin('PATCH', `/admin/v1/keys/${issued.body.id as string}`, {
    rateLimit: limits,
    budget: { limitUsd: HOT_ACCOUNT.keyBudgetUsd, period: 'month' },
  });
  if (limited.status !== 200) throw new Error(`key limits failed: ${limited.text}`);
  return { key: issued.body.key as string, accountId };
};

/** Sends `count` chat requests with the key, `concurrency` at a time; returns how many got each status. */
export const driveChat = async (
  gateway: TestGateway,
  key: string,
  count: number,
  concurrency: number,
): Promise<Map<number, number>> => {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const result = await gateway.request('POST', '/v1/chat/completions', {
        key,
        body: { model: HOT_ACCOUNT.model, max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] },
      });
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
};
