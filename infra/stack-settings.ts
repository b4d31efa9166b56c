import type { Node } from 'constructs';
import type { UsageDelivery } from '../functions/shared/accounting/usage-delivery.js';
import { DEFAULT_AUDIT_RETENTION_DAYS } from '../functions/shared/audit/audit-retention.js';
import { parseCorsOrigins } from '../functions/shared/http/cors-policy.js';

/**
 * Every `-c name=value` setting the gateway stack reads, in one table: its default, what it takes,
 * and the parser that turns the context value into it. The stack reads context only through
 * `stackSetting`, so this table is the whole list (docs/deploying.md lists it, and a test synthesizes
 * the stack once per entry). A wrong value fails synthesis with the setting's name and what it takes.
 */
export interface StackSettingDefinition<T> {
  /** The value when the setting is absent, as docs print it. */
  readonly defaultText: string;
  readonly description: string;
  readonly parse: (raw: unknown, name: string) => T;
}

const absent = (raw: unknown) => raw === undefined || raw === null || raw === '';

const text = (raw: unknown): string | undefined => (absent(raw) ? undefined : String(raw));

const flag =
  (fallback: boolean) =>
  (raw: unknown, name: string): boolean => {
    if (absent(raw)) return fallback;
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw new Error(`-c ${name} takes true or false, not '${String(raw)}'.`);
  };

const optionalFlag = (raw: unknown, name: string): boolean | undefined =>
  absent(raw) ? undefined : flag(false)(raw, name);

const number =
  (options: { integer: boolean; min: number; fallback?: number }) =>
  (raw: unknown, name: string): number | undefined => {
    if (absent(raw)) return options.fallback;
    const value = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isFinite(value) || value < options.min || (options.integer && !Number.isInteger(value))) {
      throw new Error(
        `-c ${name} takes ${options.integer ? 'an integer' : 'a number'} of ${options.min} or more, not '${String(raw)}'.`,
      );
    }
    return value;
  };

const oneOf =
  <T extends string>(values: readonly T[], fallback?: T) =>
  (raw: unknown, name: string): T | undefined => {
    if (absent(raw)) return fallback;
    if ((values as readonly unknown[]).includes(raw)) return raw as T;
    throw new Error(`-c ${name}=${String(raw)}: expected one of ${values.map((value) => `'${value}'`).join(', ')}.`);
  };

const matching =
  (pattern: RegExp, what: string) =>
  (raw: unknown, name: string): string | undefined => {
    const value = text(raw);
    if (value !== undefined && !pattern.test(value)) throw new Error(`-c ${name}='${value}': ${what}.`);
    return value;
  };

const httpsUrl = matching(/^https:\/\/[^\s/]+(\/\S*)?$/, 'give an https:// URL');

/** A stage becomes part of a stack name and a secret path: lower-case letters, digits and hyphens. */
const stagePattern = /^[a-z][a-z0-9-]{0,38}[a-z0-9]$|^[a-z]$/;

export const DEFAULT_ADMIN_THROTTLE = { rateLimit: 25, burstLimit: 50 } as const;
export const DEFAULT_SIGN_IN_THROTTLE = { rateLimit: 5, burstLimit: 10 } as const;
/** Requests per IP address in five minutes, the window of a WAF rate-based rule. */
export const DEFAULT_WAF_RATE_LIMIT = 6000;
export const DEFAULT_WAF_ADMIN_RATE_LIMIT = 300;

export const stackSettings = {
  stage: {
    defaultText: 'prod',
    description: 'The stage: names the stack (ModelGateway-<stage>), its API, API Gateway stage and user pool.',
    parse: (raw: unknown): string => {
      // `-c stage=` with nothing after it is a mistake, not a request for prod.
      const stage = raw === undefined || raw === null ? 'prod' : String(raw);
      if (!stagePattern.test(stage))
        throw new Error(
          `-c stage='${stage}': use 1 to 40 lower-case letters, digits and hyphens, starting with a letter.`,
        );
      return stage;
    },
  },
  ephemeral: {
    defaultText: 'true for ci-* stages, else false',
    description: 'Whether destroy removes everything the stage made, its data included.',
    parse: optionalFlag,
  },
  compute: {
    defaultText: 'lambda',
    description: "Where the relaying functions run: 'lambda' or 'managed-instances' (Lambda Managed Instances).",
    parse: oneOf(['lambda', 'managed-instances'] as const, 'lambda') as (raw: unknown, name: string) => string,
  },
  corsOrigins: {
    defaultText: 'none',
    description: 'Browser origins allowed to call the API (comma-separated, or *).',
    parse: (raw: unknown): readonly string[] => parseCorsOrigins(raw),
  },
  alarmEmail: {
    defaultText: 'none',
    description: 'An address the alarm topic mails (it must confirm the subscription).',
    parse: matching(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'give an e-mail address'),
  },
  budgetAlertEmail: {
    defaultText: 'none',
    description: 'An address the budget-alert topic mails (it must confirm the subscription).',
    parse: matching(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'give an e-mail address'),
  },
  accountMetrics: {
    defaultText: 'true',
    description: 'Whether request lines carry per-account metrics (4 billed custom metrics per account).',
    parse: flag(true),
  },
  adminReservedConcurrency: {
    defaultText: 'none',
    description: 'Concurrent executions reserved for the admin function (a baseline operators keep); 0 for none.',
    parse: number({ integer: true, min: 0 }),
  },
  throttleRps: {
    defaultText: "the account's API Gateway limit",
    description: "The stage's steady request rate (with throttleBurst).",
    parse: number({ integer: false, min: 0 }),
  },
  throttleBurst: {
    defaultText: "the account's API Gateway limit",
    description: "The stage's request burst (with throttleRps).",
    parse: number({ integer: true, min: 0 }),
  },
  adminThrottleRps: {
    defaultText: String(DEFAULT_ADMIN_THROTTLE.rateLimit),
    description: 'Requests per second API Gateway lets through to each /admin/v1 method.',
    parse: number({ integer: false, min: 1, fallback: DEFAULT_ADMIN_THROTTLE.rateLimit }),
  },
  adminThrottleBurst: {
    defaultText: String(DEFAULT_ADMIN_THROTTLE.burstLimit),
    description: 'The burst API Gateway lets through to each /admin/v1 method.',
    parse: number({ integer: true, min: 1, fallback: DEFAULT_ADMIN_THROTTLE.burstLimit }),
  },
  signInThrottleRps: {
    defaultText: String(DEFAULT_SIGN_IN_THROTTLE.rateLimit),
    description: "Requests per second to the console's sign-in and MFA steps (POST /console/api/session, /mfa).",
    parse: number({ integer: false, min: 1, fallback: DEFAULT_SIGN_IN_THROTTLE.rateLimit }),
  },
  signInThrottleBurst: {
    defaultText: String(DEFAULT_SIGN_IN_THROTTLE.burstLimit),
    description: "The burst of the console's sign-in.",
    parse: number({ integer: true, min: 1, fallback: DEFAULT_SIGN_IN_THROTTLE.burstLimit }),
  },
  waf: {
    defaultText: 'false',
    description: 'A WAF web ACL on the API stage with per-address rate rules (a fixed monthly cost).',
    parse: flag(false),
  },
  wafRateLimit: {
    defaultText: String(DEFAULT_WAF_RATE_LIMIT),
    description: 'With waf: requests one address may send in five minutes, to any path.',
    parse: number({ integer: true, min: 10, fallback: DEFAULT_WAF_RATE_LIMIT }),
  },
  wafAdminRateLimit: {
    defaultText: String(DEFAULT_WAF_ADMIN_RATE_LIMIT),
    description: 'With waf: requests one address may send in five minutes to /admin/v1 and the console sign-in.',
    parse: number({ integer: true, min: 10, fallback: DEFAULT_WAF_ADMIN_RATE_LIMIT }),
  },
  consoleAdminMfa: {
    defaultText: 'required',
    description: "Whether console users with the admin role must sign in with MFA: 'required' or 'optional'.",
    parse: oneOf(['required', 'optional'] as const, 'required') as (raw: unknown, name: string) => string,
  },
  logLevel: {
    defaultText: 'info',
    description: "The functions' log level (GATEWAY_LOG_LEVEL): debug, info, warn or error.",
    parse: oneOf(['debug', 'info', 'warn', 'error'] as const),
  },
  usageRetentionDays: {
    defaultText: '400',
    description: 'Days a usage record is kept (GATEWAY_USAGE_RETENTION_DAYS).',
    parse: number({ integer: true, min: 1 }),
  },
  spendShards: {
    defaultText: '1',
    description: "The fewest items an account's spend is spread over (GATEWAY_SPEND_SHARDS).",
    parse: number({ integer: true, min: 1 }),
  },
  usageDelivery: {
    defaultText: 'log',
    description:
      "Where a request's usage record goes: 'log' (a log line the usage writer stores in batches, seconds later; no store call per request) or 'store' (put before the function returns).",
    parse: oneOf(['log', 'store'] as const, 'log') as (raw: unknown, name: string) => UsageDelivery,
  },
  responsesRetentionDays: {
    defaultText: '30',
    description: 'Days a stored Response is kept (GATEWAY_RESPONSES_RETENTION_DAYS), 0 to 3,650; 0 keeps none.',
    parse: (raw: unknown, name: string): number | undefined => {
      const days = number({ integer: true, min: 0 })(raw, name);
      if (days !== undefined && days > 3650) throw new Error(`-c ${name} takes 0 to 3650 days, not '${String(raw)}'.`);
      return days;
    },
  },
  upstreamAllowedHosts: {
    defaultText: 'none (any host the private-address rule lets through)',
    description: 'Upstream hosts channels may call: names, *. suffixes, addresses, CIDRs, comma-separated.',
    parse: (raw: unknown): string | undefined => text(raw)?.trim() || undefined,
  },
  upstreamPrivateAddresses: {
    defaultText: 'deny',
    description: 'Whether channels may call loopback, link-local, private and metadata addresses: deny or allow.',
    parse: (raw: unknown, name: string): string =>
      oneOf(['deny', 'allow'] as const, 'deny')(text(raw)?.trim().toLowerCase(), name)!,
  },
  auditRetentionDays: {
    defaultText: String(DEFAULT_AUDIT_RETENTION_DAYS),
    description: 'Days the audit trail keeps a record.',
    parse: number({ integer: true, min: 1, fallback: DEFAULT_AUDIT_RETENTION_DAYS }),
  },
  ssoProvider: {
    defaultText: 'none',
    description: "A federated sign-in for the console: 'oidc' or 'saml' (with the sso* settings below).",
    parse: oneOf(['oidc', 'saml'] as const),
  },
  ssoName: {
    defaultText: 'SSO',
    description: 'The name of the identity provider in the user pool (letters, digits, hyphens).',
    parse: (raw: unknown, name: string): string =>
      matching(/^[A-Za-z0-9-]{3,32}$/, 'use 3 to 32 letters, digits and hyphens')(raw, name) ?? 'SSO',
  },
  ssoIssuer: {
    defaultText: 'none',
    description: "With ssoProvider=oidc: the provider's issuer URL.",
    parse: httpsUrl,
  },
  ssoClientId: {
    defaultText: 'none',
    description: 'With ssoProvider=oidc: the client id registered at the provider.',
    parse: text,
  },
  ssoClientSecretName: {
    defaultText: 'none',
    description: 'With ssoProvider=oidc: the Secrets Manager secret that holds the client secret.',
    parse: text,
  },
  ssoMetadataUrl: {
    defaultText: 'none',
    description: "With ssoProvider=saml: the provider's SAML metadata URL.",
    parse: httpsUrl,
  },
  ssoDomainPrefix: {
    defaultText: 'none',
    description:
      "With ssoProvider: the prefix of the pool's sign-in domain (<prefix>.auth.<region>.amazoncognito.com).",
    parse: matching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'use lower-case letters, digits and hyphens'),
  },
} satisfies Record<string, StackSettingDefinition<unknown>>;

export type StackSettingName = keyof typeof stackSettings;
export type StackSettingValue<N extends StackSettingName> = ReturnType<(typeof stackSettings)[N]['parse']>;

/** One setting's value from the context of a construct's tree (`cdk deploy -c name=value`). */
export const stackSetting = <N extends StackSettingName>(node: Node, name: N): StackSettingValue<N> =>
  stackSettings[name].parse(node.tryGetContext(name), name) as StackSettingValue<N>;

/** Whether the context gives a setting at all (a default may hide that it was left out). */
export const stackSettingGiven = (node: Node, name: StackSettingName): boolean => !absent(node.tryGetContext(name));
