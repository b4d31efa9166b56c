import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { withCallObserver } from '../aws/aws-call-observer.js';
import type * as SecretsManagerSdkModule from './secrets-manager-sdk.js';

type SecretsManagerSdk = typeof SecretsManagerSdkModule;

let sdk: Promise<SecretsManagerSdk> | undefined;
let client: SecretsManagerClient | undefined;

/** The SDK's client and commands, loaded on first use (most requests never need them). */
export const secretsManagerSdk = (): Promise<SecretsManagerSdk> => (sdk ??= import('./secrets-manager-sdk.js'));

/**
 * The shared Secrets Manager client, made on first use. `SECRETS_MANAGER_ENDPOINT` points it at
 * another endpoint (the tests' fake); deployed functions leave it unset and use the regional one.
 */
export const secretsManager = async (): Promise<SecretsManagerClient> => {
  const { SecretsManagerClient } = await secretsManagerSdk();
  if (client) return client;
  const endpoint = process.env.SECRETS_MANAGER_ENDPOINT;
  client = new SecretsManagerClient(
    endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          // A fake endpoint accepts any credentials; with real ones in the environment, they are used.
          ...(process.env.AWS_ACCESS_KEY_ID ? {} : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
        }
      : {},
  );
  withCallObserver(client);
  return client;
};

/** Drops the client so the next call builds one from the current environment (tests). */
export const resetSecretsManager = (): void => {
  client?.destroy();
  client = undefined;
};
