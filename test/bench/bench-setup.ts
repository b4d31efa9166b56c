/**
 * What every bench sets up on a gateway it measures, through the admin API: OpenAI channels on the
 * fake upstream with priced models, the two keys each figure is taken for, and the chat request it sends.
 */

// The fake upstream streams one chunk per word: a role chunk, 18 words and a finish chunk make 20.
const STREAM_PROMPT =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen';

/**
 * The chat request every bench sends: a short question, or a prompt the fake upstream streams in 20
 * chunks. A stream asks for its usage chunk, as agent clients do: the gateway always asks the upstream
 * for it, and a server that forwards the request as it came (the floor, Portkey) must get the same
 * stream from the upstream, or it is measured on one event fewer (and, paced, one gap shorter).
 */
export const chatBody = (stream: boolean, model = 'bench-model'): string =>
  JSON.stringify({
    model,
    stream,
    ...(stream && { stream_options: { include_usage: true } }),
    messages: [{ role: 'user', content: stream ? STREAM_PROMPT : 'How fast is this gateway?' }],
  });

/** The key the channels send upstream (the fake upstream takes any). */
export const UPSTREAM_KEY = 'sk-bench-upstream';

export interface BenchKeys {
  /** A key of an account without limits or quota. */
  readonly plain: string;
  /** A key of an account with a rate limit and a quota, set so high that every request is admitted. */
  readonly limited: string;
}

export const benchAdmin = (gatewayUrl: string, adminKey: string) => {
  const admin = async (method: string, route: string, body: unknown) => {
    const response = await fetch(`${gatewayUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ id: string; key: string }>;
  };
  const keyOf = async (account: object) =>
    (await admin('POST', '/admin/v1/keys', { accountId: (await admin('POST', '/admin/v1/accounts', account)).id })).key;
  return {
    /** An OpenAI channel on `baseUrl` serving `model`, and the model's price. */
    addChannel: async (id: string, baseUrl: string, model: string): Promise<void> => {
      await admin('PUT', `/admin/v1/channels/${id}`, {
        type: 'openai',
        baseUrl,
        apiKey: UPSTREAM_KEY,
        models: [model],
      });
      await admin('PUT', `/admin/v1/models/${model}`, { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
    },
    createKeys: async (): Promise<BenchKeys> => ({
      plain: await keyOf({ name: 'bench plain' }),
      limited: await keyOf({
        name: 'bench limited',
        quota: { limit: 1_000_000_000 },
        rateLimit: { rpm: 100_000_000, tpm: 1_000_000_000 },
      }),
    }),
  };
};
