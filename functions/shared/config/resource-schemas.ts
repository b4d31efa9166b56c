import * as z from '../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../schemas/lazy-schema.js';
import { isCidr } from '../auth/ip-allow-list.js';
import { budgetPeriods } from '../accounting/budget-period.js';
import { budgetSettings } from '../accounting/budgets.js';
import { isFieldValue } from '../http/client/http-syntax.js';
import { channelTypes, endpointKinds } from '../store/channels.js';

/**
 * The fields of the configuration resources (accounts, keys, channels, models), defined once: the
 * admin API's request bodies and the `GATEWAY_CONFIG` file are built from these, so a value one of
 * them accepts the other accepts too.
 */

const MAX_LIST_ENTRIES = 1000;

/*
 * Every number has bounds a real setting stays far inside: a value beyond them is a typo or an attack,
 * and would otherwise reach the store (which refuses numbers beyond 38 digits, and the SDK beyond
 * 2^53) as a 500, or make quota and pricing arithmetic meaningless.
 */
/** USD: a quota or a price per million tokens above a billion dollars is a mistake. */
const MAX_USD = 1_000_000_000;
/**
 * USD amounts are kept to twelve decimals (`roundUsd`): a positive amount below that counts as none,
 * and one below 1e-130 (a double can go to 5e-324) is a number the store refuses.
 */
const MIN_USD = 1e-12;
/** Requests or tokens per minute. */
const MAX_PER_MINUTE = 1_000_000_000_000;
/** Channel priority and weight: relative numbers, any sane scheme fits. */
const MAX_PRIORITY = 1_000_000;

/** Account, key and channel ids: safe in a URL path segment and a log line. */
export const resourceId = lazySchema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9._-]{1,100}$/, 'expected 1 to 100 letters, digits, ".", "_" or "-"')),
);

/**
 * A public model id. `/` and `:` appear in real ids (`meta/llama-3`, `anthropic.claude-v2:1`), `@` in
 * Vertex-style ones; whitespace never does, so a stray space is caught here, not by a model that never
 * matches.
 */
export const modelId = lazySchema(() =>
  z
    .string()
    .check(z.regex(/^[A-Za-z0-9._:/@-]{1,200}$/, 'expected 1 to 200 letters, digits, ".", "_", ":", "/", "@" or "-"')),
);

export const displayName = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(200)));

export const modelList = lazySchema(() => z.array(modelId()).check(z.maxLength(MAX_LIST_ENTRIES)));

export const rateLimit = lazySchema(() =>
  z.strictObject({
    rpm: z.optional(z.int().check(z.positive(), z.lte(MAX_PER_MINUTE))),
    tpm: z.optional(z.int().check(z.positive(), z.lte(MAX_PER_MINUTE))),
  }),
);

/** An amount of USD: 0, or between a millionth of a millionth and a billion. */
const usdAmount = lazySchema(() =>
  z.number().check(
    z.gte(0),
    z.lte(MAX_USD),
    z.refine(
      (value) => value === 0 || value >= MIN_USD,
      `expected 0 or at least ${MIN_USD} (USD are kept to 12 decimals)`,
    ),
  ),
);

/** USD; `limit: null` removes the quota. */
export const quota = lazySchema(() => z.strictObject({ limit: z.nullable(usdAmount()) }));

/**
 * A budget (DESIGN §11): USD per calendar period in UTC, or in total; `alertAt` are fractions of the
 * limit at which alerts go out (default 0.8 and 1). `null` removes the budget.
 */
export const budget = lazySchema(() =>
  z.nullable(
    z.pipe(
      z.strictObject({
        limitUsd: usdAmount(),
        period: z.enum(budgetPeriods),
        alertAt: z.nullish(z.array(z.number().check(z.gt(0), z.lte(10))).check(z.minLength(0), z.maxLength(10))),
      }),
      z.transform((value) => budgetSettings(value)),
    ),
  ),
);

export const keyRole = lazySchema(() => z.enum(['user', 'admin']));

export const accountStatus = lazySchema(() => z.enum(['active', 'disabled']));

/** ISO-8601 with a time zone, stored in UTC (`…Z`) so that stored values compare as strings. */
export const dateTime = lazySchema(() =>
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((value) => new Date(value).toISOString()),
  ),
);

export const accountFields = lazySchema(() => ({
  name: displayName(),
  /** `null` or absent: every configured model. */
  models: z.nullish(modelList()),
  quota: z.optional(quota()),
  budget: z.optional(budget()),
  rateLimit: z.nullish(rateLimit()),
}));

export const keyFields = lazySchema(() => ({
  name: z.nullish(displayName()),
  role: z.optional(keyRole()),
  expiresAt: z.nullish(dateTime()),
  /** Narrows the account's models; `null` or absent keeps the account's list. */
  models: z.nullish(modelList()),
  rateLimit: z.nullish(rateLimit()),
  /** CIDRs (IPv4 or IPv6, or single addresses) the key may be used from; `null` or absent: anywhere. */
  allowedIps: z.nullish(
    z
      .array(
        z.string().check(z.maxLength(100), z.refine(isCidr, 'expected a CIDR such as 203.0.113.0/24 or 2001:db8::/32')),
      )
      .check(z.minLength(1), z.maxLength(100)),
  ),
  budget: z.optional(budget()),
}));

const tokenPrices = () => ({
  inputPerMTok: usdAmount(),
  outputPerMTok: usdAmount(),
  cachedInputPerMTok: z.optional(usdAmount()),
  /** Prompt tokens written to the upstream's cache; 1.25 × the input price when absent. */
  cacheWritePerMTok: z.optional(usdAmount()),
});

export const pricing = lazySchema(() =>
  z.strictObject({
    ...tokenPrices(),
    /** Long-context prices: a prompt of more than `aboveInputTokens` tokens is priced at the tier's prices. */
    tiers: z.optional(
      z
        .array(z.strictObject({ aboveInputTokens: z.int().check(z.gte(0), z.lte(100_000_000)), ...tokenPrices() }))
        .check(z.maxLength(10)),
    ),
  }),
);

export const modelFields = lazySchema(() => ({
  pricing: z.nullish(pricing()),
  aliases: z.optional(z.array(modelId()).check(z.maxLength(MAX_LIST_ENTRIES))),
  ownedBy: z.nullish(displayName()),
  /** Whether the model reasons before answering; decided from its id when absent. */
  reasoning: z.nullish(z.boolean()),
}));

/**
 * An upstream's key, as a channel stores it: every provider sends it in a header, so a key that no
 * header can carry (most often a pasted key's trailing newline) is refused here, where it is given,
 * rather than failing every call later. The HTTP client's own rule decides it; a tab, which a header
 * may hold, is refused too, since it is never part of a key.
 */
export const upstreamKey = lazySchema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(10_000),
    z.refine(
      (key) => isFieldValue(key) && !key.includes('\t'),
      'an upstream key goes in a header, which cannot carry a line break, another control character or a character beyond Latin-1',
    ),
  ),
);

export const channelFields = lazySchema(() => ({
  type: z.enum(channelTypes),
  baseUrl: z.optional(z.url({ protocol: /^https?$/, error: 'expected an http or https URL' }).check(z.maxLength(2000))),
  /** Write-only. Absent on a replace: the stored key is kept; `null`: the stored key is removed. */
  apiKey: z.nullish(upstreamKey()),
  models: modelList(),
  /** Public id → the upstream's model name. */
  modelMap: z.optional(z.record(modelId(), z.string().check(z.minLength(1), z.maxLength(500)))),
  /** Absent or `null`: every endpoint the channel type supports. */
  endpoints: z.nullish(z.array(z.enum(endpointKinds)).check(z.minLength(1), z.maxLength(endpointKinds.length))),
  /** Higher first. */
  priority: z._default(z.int().check(z.gte(-MAX_PRIORITY), z.lte(MAX_PRIORITY)), 0),
  /** Share of traffic among channels of the same priority. */
  weight: z._default(z.int().check(z.gte(1), z.lte(MAX_PRIORITY)), 1),
  enabled: z._default(z.boolean(), true),
  /** Upstream timeouts in milliseconds: connection, first byte, silence between stream chunks. */
  timeouts: z.nullish(
    z.strictObject({
      connectMs: z.optional(z.int().check(z.gte(100), z.lte(60_000))),
      firstByteMs: z.optional(z.int().check(z.gte(100), z.lte(900_000))),
      idleMs: z.optional(z.int().check(z.gte(100), z.lte(900_000))),
    }),
  ),
}));

/**
 * What a channel's type demands of the rest: an `openai` channel has no default host to call (other
 * types either have their vendor's API root, need none, or take one to reach a proxy), and a
 * `bedrock` channel signs with the function's IAM role, so a key given to it would silently go unused.
 */
export const channelTypeRules = (
  channel: { type: string; baseUrl?: string | undefined; apiKey?: string | null | undefined },
  context: z.core.$RefinementCtx,
): void => {
  if (channel.type === 'openai' && channel.baseUrl === undefined) {
    context.addIssue({
      code: 'invalid_type',
      expected: 'string',
      input: undefined,
      path: ['baseUrl'],
      message: 'a channel of type openai needs baseUrl (the API root with /v1, e.g. https://api.openai.com/v1)',
    });
  }
  if (channel.type === 'bedrock' && typeof channel.apiKey === 'string') {
    context.addIssue({
      code: 'custom',
      input: channel.apiKey,
      path: ['apiKey'],
      message:
        "a channel of type bedrock takes no apiKey, since the gateway calls Bedrock with its own AWS credentials (the function's IAM role)",
    });
  }
};

export const channelBody = lazySchema(() => z.strictObject(channelFields()).check(z.superRefine(channelTypeRules)));

export type AccountInput = z.output<z.ZodMiniObject<ReturnType<typeof accountFields>>> & {
  readonly status?: LazyOutput<typeof accountStatus>;
};
export type KeyInput = z.output<z.ZodMiniObject<ReturnType<typeof keyFields>>>;
export type ChannelInput = LazyOutput<typeof channelBody>;
export type ModelInput = z.output<z.ZodMiniObject<ReturnType<typeof modelFields>>>;
