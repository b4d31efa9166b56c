import { createHash } from 'node:crypto';
import * as z from '../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../schemas/lazy-schema.js';
import { looksLikeApiKey } from '../auth/api-key.js';
import {
  accountFields,
  accountStatus,
  budget,
  channelFields,
  keyFields,
  modelFields,
  modelId,
  channelTypeRules,
  resourceId,
  upstreamKey,
} from './resource-schemas.js';

/**
 * The declarative configuration (`GATEWAY_CONFIG`, DESIGN §3.1): channels, models, accounts and their
 * keys, and members. Its entries take the same fields as the admin API's bodies. Only the schema lives here, so the
 * admin Lambda can validate a config without bundling the YAML parser; reading and parsing a file's
 * text (JSON or YAML) is in `gateway-config.ts`, used by the local runtime and the CLI.
 */

/** A config file that cannot be used; the message names the file and the path of each bad field. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

/**
 * A secret, as its value. A file may write it as `${ENV_NAME}`: that is resolved where the file is read
 * (config-placeholders.ts), never here, since this schema also checks documents sent to the admin API.
 */
const secret = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(10_000)));

const configKey = lazySchema(() =>
  z.strictObject({
    key: secret().check(z.refine(looksLikeApiKey, 'expected sk- followed by 20 to 200 letters or digits')),
    ...keyFields(),
  }),
);

const configChannel = lazySchema(() =>
  z
    .strictObject({ id: resourceId(), ...channelFields(), apiKey: z.optional(upstreamKey()) })
    .check(z.superRefine(channelTypeRules)),
);

const configModel = lazySchema(() => z.strictObject({ id: modelId(), ...modelFields() }));

/**
 * A stable id for an account declared without one, so that applying the file again finds it: a
 * readable slug of the name plus a short hash of the exact name, which keeps two names with the same
 * slug apart and keeps declared accounts off ids the gateway gives out itself (`acct_admin`).
 */
export const deriveAccountId = (name: string): string => {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return slug ? `acct_${slug}_${digest}` : `acct_${digest}`;
};

const configAccount = lazySchema(() =>
  z.pipe(
    z.strictObject({
      id: z.optional(resourceId()),
      ...accountFields(),
      status: z.optional(accountStatus()),
      keys: z._default(z.array(configKey()).check(z.maxLength(1000)), []),
    }),
    z.transform(({ id, ...account }) => ({ id: id ?? deriveAccountId(account.name), ...account })),
  ),
);

/**
 * A person who may sign in to the console (DESIGN §11: their budget covers the keys they create).
 * No password: a file is no place for one; deployed, the user pool keeps it.
 */
const configMember = lazySchema(() =>
  z.strictObject({
    id: z.pipe(
      z.email().check(z.maxLength(254)),
      z.transform((email) => email.trim().toLowerCase()),
    ),
    accountId: resourceId(),
    role: z.enum(['member', 'account-admin', 'admin']),
    /** Absent keeps the stored one, `null` removes it. */
    budget: z.optional(budget()),
  }),
);

type IdAtPath = readonly [id: string, path: readonly PropertyKey[]];

/** Reports every entry whose id an earlier entry already took, at the path of the later one. */
const rejectDuplicates = (context: z.core.$RefinementCtx, message: string, entries: readonly IdAtPath[]) => {
  const seen = new Set<string>();
  for (const [id, path] of entries) {
    if (seen.has(id)) context.addIssue({ code: 'custom', path: [...path], message });
    seen.add(id);
  }
};

export const gatewayConfigSchema = lazySchema(() =>
  z
    .strictObject({
      channels: z._default(z.array(configChannel()).check(z.maxLength(1000)), []),
      models: z._default(z.array(configModel()).check(z.maxLength(10_000)), []),
      accounts: z._default(z.array(configAccount()).check(z.maxLength(10_000)), []),
      members: z._default(z.array(configMember()).check(z.maxLength(10_000)), []),
    })
    .check(
      z.superRefine(({ channels, models, accounts, members }, context) => {
        const at = (id: string, ...path: PropertyKey[]): IdAtPath => [id, path];
        rejectDuplicates(
          context,
          'duplicate channel id',
          channels.map(({ id }, index) => at(id, 'channels', index, 'id')),
        );
        rejectDuplicates(
          context,
          'duplicate model id',
          models.map(({ id }, index) => at(id, 'models', index, 'id')),
        );
        rejectDuplicates(
          context,
          'duplicate account id (an account without id gets one from its name)',
          accounts.map(({ id }, index) => at(id, 'accounts', index, 'id')),
        );
        const keys = accounts.flatMap((account, accountIndex) =>
          account.keys.map(({ key }, keyIndex) => at(key, 'accounts', accountIndex, 'keys', keyIndex, 'key')),
        );
        rejectDuplicates(context, 'duplicate key', keys);
        rejectDuplicates(
          context,
          'duplicate member (e-mail addresses are compared in lower case)',
          members.map(({ id }, index) => at(id, 'members', index, 'id')),
        );
      }),
    ),
);

export type GatewayConfig = LazyOutput<typeof gatewayConfigSchema>;
export type ConfigAccount = GatewayConfig['accounts'][number];
export type ConfigMember = GatewayConfig['members'][number];
