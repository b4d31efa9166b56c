import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  type AttributeDefinition,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { physicalTableName, tableDefinitions, tableNames } from '../../functions/shared/store/tables.js';

export interface EmbeddedStore {
  /** The DynamoDB endpoint the gateway talks to. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts the embedded DynamoDB-compatible engine on a free loopback port: LevelDB files under
 * `dataDir`, or memory only when `dataDir` is `memory`.
 */
export const startEmbeddedStore = async (dataDir: string): Promise<EmbeddedStore> => {
  const inMemory = dataDir === 'memory';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const server: Server = dynalite({
    ...(inMemory ? {} : { path: dataDir }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** The CreateTable request for one of our tables, from the shared definitions. */
export const createTableInput = (table: (typeof tableNames)[number]): CreateTableCommandInput => {
  const definition = tableDefinitions[table];
  const attributes = new Set([definition.partitionKey, definition.sortKey]);
  for (const index of definition.indexes ?? []) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  const keySchema = (partitionKey: string, sortKey?: string) => [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: physicalTableName(table),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes]
      .filter((name): name is string => Boolean(name))
      .map((name): AttributeDefinition => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    ...(definition.indexes?.length
      ? {
          GlobalSecondaryIndexes: definition.indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: keySchema(index.partitionKey, index.sortKey),
            Projection: { ProjectionType: 'ALL' },
          })),
        }
      : {}),
  };
};

/** Creates whichever of the gateway's tables the endpoint does not have yet. */
export const ensureTables = async (endpoint: string): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(process.env.AWS_ACCESS_KEY_ID ? {} : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  try {
    const existing = new Set<string>();
    let start: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
      for (const name of page.TableNames ?? []) existing.add(name);
      start = page.LastEvaluatedTableName;
    } while (start);
    for (const table of tableNames) {
      if (!existing.has(physicalTableName(table))) await client.send(new CreateTableCommand(createTableInput(table)));
    }
  } finally {
    client.destroy();
  }
};
