/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`). Lambda hands every function its role's credentials in the environment, so
 * the full chain (SSO, STS, profiles, IMDS) is dead weight: about 120 KB of the 250 KB budget.
 * The local runtime runs the sources unbundled and keeps the SDK's full chain.
 */
interface EnvironmentCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Same shape as the SDK's `defaultProvider`: an init call that returns a credential provider. */
export const defaultProvider = () => async (): Promise<EnvironmentCredentials> => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('AWS credentials are missing from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).');
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
};
