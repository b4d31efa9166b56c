/**
 * The Secrets Manager client and the commands the gateway sends, in one module that is imported
 * only when a channel's key is stored or read (`secrets-client.ts`): a function whose channels keep
 * their keys in the store never loads it, and its bundle carries it as a separate chunk.
 */
export {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
