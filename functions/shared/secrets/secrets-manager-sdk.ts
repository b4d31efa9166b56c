/**
 * The Secrets Manager client and the commands the gateway sends, in one module that is imported
 * only when a channel's key is stored or read (`secrets-client.ts`): a function whose channels keep
 * their keys in the store never loads it, and its bundle carries it as a separate chunk.
 * The SDK parses answers with the global `JSON.parse`: guarded from here on (`parse-json.ts`).
 */
import { guardGlobalJsonParse } from '../http/parse-json.js';

guardGlobalJsonParse();

export {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
