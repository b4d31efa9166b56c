import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MARSHALL_OPTIONS } from '../../functions/shared/store/marshall-options.js';
import { resetStoreConnection } from '../../functions/shared/store/connection.js';

/**
 * The SDK's document client on the store the gateway uses (`DYNAMODB_ENDPOINT`), for tests to read and
 * write items by a path independent of the gateway's own store calls, and as the reference those
 * calls are compared with.
 */

let documentClient: DynamoDBDocumentClient | undefined;

export const store = (): DynamoDBDocumentClient => {
  if (documentClient) return documentClient;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          ...(process.env.AWS_ACCESS_KEY_ID ? {} : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
        }
      : {}),
  });
  documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { ...MARSHALL_OPTIONS } });
  return documentClient;
};

/** Drops this client and the gateway's store connection, so both follow the current environment. */
export const resetStore = (): void => {
  documentClient?.destroy();
  documentClient = undefined;
  resetStoreConnection();
};
