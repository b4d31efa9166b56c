/**
 * Where upstream keys go, shared by the functions and the CDK stack that sets it. Kept apart from the
 * Secrets Manager client so that the stack can read it without loading the SDK.
 */

/** The environment variable that switches keys to Secrets Manager and names their folder. */
export const upstreamSecretPrefixVariable = 'UPSTREAM_SECRET_PREFIX';

/** The prefix a stack gives its functions: one folder of secrets per stack. */
export const upstreamSecretPrefixForStack = (stackName: string): string => `model-gateway/${stackName}/channels`;

/**
 * The prefix in force: set on the deployed functions; unset (local runtime, tests by default), the
 * channels table keeps the key itself.
 */
export const upstreamSecretPrefix = (): string | undefined => process.env[upstreamSecretPrefixVariable] || undefined;

/** The secret of one channel's key under a prefix. */
export const upstreamSecretName = (prefix: string, channelId: string): string => `${prefix}/${channelId}`;
