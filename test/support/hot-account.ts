import type { TestGateway } from './test-gateway.js';

/**
 * One account that a whole company sends through: limits sized for 10,000 requests per second, a
 * quota, and a priced model, so that every request writes every kind of bookkeeping (request and
 * token windows of key and account, spend, usage record and its indexes).
 */
export const HOT_ACCOUNT = {
  requestsPerSecond: 10_000,
  rpm: 600_000,
  tpm: 300_000_000,
  quotaUsd: 1_000_000,
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
  const { key, account } = await gateway.createAccountWithKey(
    { name: 'hot account', quota: { limit: HOT_ACCOUNT.quotaUsd }, rateLimit: limits },
    { rateLimit: limits },
  );
  return { key, accountId: account.id };
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
