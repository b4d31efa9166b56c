/**
 * Stands in for `@aws-sdk/token-providers` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`). Only the Bedrock Runtime client imports it, for its bearer-token (Bedrock
 * API key) auth scheme, and takes two functions from it:
 *
 * - `fromEnvSigningName`, the `AWS_BEARER_TOKEN_BEDROCK` variable: kept, with the same behaviour,
 *   since it is a few lines and a variable is something an operator could set on a function;
 * - `nodeProvider`, which reads an SSO session from `~/.aws/config` and refreshes it through the SSO
 *   OIDC client (`@aws-sdk/nested-clients/sso-oidc`, about 20 KB of the chat bundle): replaced by a
 *   provider that reports "no token". A function has no shared config file, so on Lambda the real
 *   provider ends there too.
 *
 * Bedrock channels sign with SigV4 and the function's role: the client lists SigV4 first, so the
 * bearer scheme is considered only when `AWS_BEARER_TOKEN_BEDROCK` or `AWS_AUTH_SCHEME_PREFERENCE`
 * says so, and the gateway's functions set neither. The local runtime runs the sources unbundled and
 * keeps the SDK's full providers.
 */
import { setTokenFeature } from '@aws-sdk/core/client';
import { getBearerTokenEnvKey } from '@aws-sdk/core/httpAuthSchemes';
import { TokenProviderError } from '@smithy/core/config';
import type { Logger, TokenIdentity } from '@smithy/types';

interface SigningNameInit {
  readonly signingName?: string;
  readonly logger?: Logger;
}

/** Same as the SDK's: the token in `AWS_BEARER_TOKEN_<SIGNING NAME>`, or a provider error. */
export const fromEnvSigningName =
  ({ logger, signingName }: SigningNameInit = {}) =>
  async (): Promise<TokenIdentity> => {
    logger?.debug?.('@aws-sdk/token-providers - fromEnvSigningName');
    if (!signingName) {
      throw new TokenProviderError("Please pass 'signingName' to compute environment variable key", { logger });
    }
    const variable = getBearerTokenEnvKey(signingName);
    if (!(variable in process.env)) {
      throw new TokenProviderError(`Token not present in '${variable}' environment variable`, { logger });
    }
    const token = { token: process.env[variable] as string };
    setTokenFeature(token, 'BEARER_SERVICE_ENV_VARS', '3');
    return token;
  };

/** The SDK's SSO token chain, minus SSO: a Lambda function has no SSO session to read. */
export const nodeProvider = () => async (): Promise<TokenIdentity> => {
  throw new TokenProviderError(
    'Could not load token from any providers (SSO tokens are not part of the Lambda bundle)',
    false,
  );
};
