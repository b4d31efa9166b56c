/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`). Lambda hands every function its role's credentials in the environment, or
 * at a local credentials endpoint where an environment outlives them
 * (`functions/shared/aws/function-credentials.ts`, which the store's own calls use too), so the full
 * chain (SSO, STS, profiles, IMDS) is dead weight: about 120 KB of the 250 KB budget. The local
 * runtime runs the sources unbundled and keeps the SDK's full chain.
 */
import {
  functionCredentials,
  type CredentialsProvider,
  type FunctionCredentials,
} from '../../functions/shared/aws/function-credentials.js';

/** Same shape as the SDK's `defaultProvider`: an init call that returns a credential provider. */
export const defaultProvider = () => {
  let provider: CredentialsProvider | undefined;
  return async (): Promise<FunctionCredentials> => {
    provider ??= functionCredentials(process.env);
    if (!provider) {
      throw new Error(
        'AWS credentials are missing from the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_CONTAINER_CREDENTIALS_FULL_URI).',
      );
    }
    return provider();
  };
};
