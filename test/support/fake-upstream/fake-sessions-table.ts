import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { listenDynalite, type DynaliteServer } from '../../../infra/local/dynalite-server.js';

/** The fixtures stack's sessions table, made on a local store: the same keys as `FixturesStack`'s. */
export const createFakeSessionsTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'session', AttributeType: 'S' },
        { AttributeName: 'entry', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'session', KeyType: 'HASH' },
        { AttributeName: 'entry', KeyType: 'RANGE' },
      ],
    }),
  );
};

/** A store in memory (dynalite) with the sessions table, for hosts that keep their state as the Lambda does. */
export const startLocalSessionsTable = async (
  tableName = 'fake-upstream-sessions',
): Promise<{ client: DynamoDBClient; tableName: string; store: DynaliteServer }> => {
  const store = await listenDynalite('memory');
  // A local store takes any credentials; real ones are neither needed nor wanted here.
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${store.port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local-test-only', secretAccessKey: 'local-test-only' },
  });
  await createFakeSessionsTable(client, tableName);
  return { client, tableName, store };
};
