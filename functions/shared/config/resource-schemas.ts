import * as z from 'zod';
import { isCidr } from '../auth/ip-allow-list.js';
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
/** Requests or tokens per minute. */
const MAX_PER_MINUTE = 1_000_000_000_000;
/** Channel priority and weight: relative numbers, any sane scheme fits. */
const MAX_PRIORITY = 1_000_000;

/** Account, key and channel ids: safe in a URL path segment and a log line. */
export const resourceId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, 'expected 1 to 100 letters, digits, ".", "_" or "-"');

/**
 * A public model id. `/` and `:` appear in real ids (`meta/llama-3`, `anthropic.claude-v2:1`), `@` in
 * Vertex-style ones; whitespace never does, so a stray space is caught here, not by a model that never
 * matches.
 */
export const modelId = z
  .string()
  .regex(/^[A-Za-z0-9._:/@-]{1,200}$/, 'expected 1 to 200 letters, digits, ".", "_", ":", "/", "@" or "-"');

export const displayName = z.string().min(1).max(200);

export const modelList = z.array(modelId).max(MAX_LIST_ENTRIES);

export const rateLimit = z.strictObject({
  rpm: z.int().positive().max(MAX_PER_MINUTE).optional(),
  tpm: z.int().positive().max(MAX_PER_MINUTE).optional(),
});

/** USD; `limit: null` removes the quota. */
export const quota = z.strictObject({ limit: z.number().min(0).max(MAX_USD).nullable() });

export const keyRole = z.enum(['user', 'admin']);

export const accountStatus = z.enum(['active', 'disabled']);

/** ISO-8601 with a time zone, stored in UTC (`…Z`) so that stored values compare as strings. */
export const dateTime = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());

export const accountFields = {
  name: displayName,
  /** `null` or absent: every configured model. */
  models: modelList.nullable().optional(),
  quota: quota.optional(),
  rateLimit: rateLimit.nullable().optional(),
};

export const keyFields = {
  name: displayName.nullable().optional(),
  role: keyRole.optional(),
  expiresAt: dateTime.nullable().optional(),
  /** Narrows the account's models; `null` or absent keeps the account's list. */
  models: modelList.nullable().optional(),
  rateLimit: rateLimit.nullable().optional(),
  /** CIDRs (IPv4 or IPv6, or single addresses) the key may be used from; `null` or absent: anywhere. */
  allowedIps: z
    .array(z.string().max(100).refine(isCidr, 'expected a CIDR such as 203.0.113.0/24 or 2001:db8::/32'))
    .min(1)
    .max(100)
    .nullable()
    .optional(),
};

export const pricing = z.strictObject({
  inputPerMTok: z.number().min(0).max(MAX_USD),
  outputPerMTok: z.number().min(0).max(MAX_USD),
  cachedInputPerMTok: z.number().min(0).max(MAX_USD).optional(),
  /** Prompt tokens written to the upstream's cache; 1.25 × the input price when absent. */
  cacheWritePerMTok: z.number().min(0).max(MAX_USD).optional(),
});

export const modelFields = {
  pricing: pricing.nullable().optional(),
  aliases: z.array(modelId).max(MAX_LIST_ENTRIES).optional(),
  ownedBy: displayName.nullable().optional(),
  /** Whether the model reasons before answering; decided from its id when absent. */
  reasoning: z.boolean().nullable().optional(),
};

export const channelFields = {
  type: z.enum(channelTypes),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
    .max(2000)
    .optional(),
  /** Write-only. Absent on a replace: the stored key is kept; `null`: the stored key is removed. */
  apiKey: z.string().min(1).max(10_000).nullable().optional(),
  models: modelList,
  /** Public id → the upstream's model name. */
  modelMap: z.record(modelId, z.string().min(1).max(500)).optional(),
  /** Absent or `null`: every endpoint the channel type supports. */
  endpoints: z.array(z.enum(endpointKinds)).min(1).max(endpointKinds.length).nullable().optional(),
  /** Higher first. */
  priority: z.int().min(-MAX_PRIORITY).max(MAX_PRIORITY).default(0),
  /** Share of traffic among channels of the same priority. */
  weight: z.int().min(1).max(MAX_PRIORITY).default(1),
  enabled: z.boolean().default(true),
  /** Upstream timeouts in milliseconds: connection, first byte, silence between stream chunks. */
  timeouts: z
    .strictObject({
      connectMs: z.int().min(100).max(60_000).optional(),
      firstByteMs: z.int().min(100).max(900_000).optional(),
      idleMs: z.int().min(100).max(900_000).optional(),
    })
    .nullable()
    .optional(),
};

/**
 * What a channel's type demands of the rest: an `openai` channel has no default host to call (other
 * types either have their vendor's API root, need none, or take one to reach a proxy), and a
 * `bedrock` channel signs with the function's IAM role, so a key given to it would silently go unused.
 */
export const channelTypeRules = (
  channel: { type: string; baseUrl?: string | undefined; apiKey?: string | null | undefined },
  context: z.RefinementCtx,
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

export const channelBody = z.strictObject(channelFields).superRefine(channelTypeRules);

export type AccountInput = z.output<z.ZodObject<typeof accountFields>> & {
  readonly status?: z.output<typeof accountStatus>;
};
export type KeyInput = z.output<z.ZodObject<typeof keyFields>>;
export type ChannelInput = z.output<typeof channelBody>;
export type ModelInput = z.output<z.ZodObject<typeof modelFields>>;
