import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AttributeDefinition, CreateTableCommandInput, ListTablesCommandOutput } from '@aws-sdk/client-dynamodb';
import { log } from '../../functions/shared/log.js';
import { signedConnection } from '../../functions/shared/store/connection.js';
import { sendSigned } from '../../functions/shared/store/operations.js';
import { directStoreTarget } from '../../functions/shared/store/store-target.js';
import { physicalTableName, tableDefinitions, tableNames } from '../../functions/shared/store/tables.js';
import { listenDynalite, SERVE_FLAG, type StoreProcessMessage } from './dynalite-server.js';

/**
 * Where the embedded engine runs. `child-process` (the default, for `npm start`, the tests and the
 * bench) keeps it out of the gateway's event loop, CPU time and heap, as DynamoDB is a separate
 * service in production; it costs about 0.1 s more per start. `in-process` is for hosts that cannot
 * fork, and for comparing the two.
 */
export type EmbeddedStoreMode = 'in-process' | 'child-process';

export interface EmbeddedStore {
  /** The DynamoDB endpoint the gateway talks to. */
  readonly endpoint: string;
  /** The store's process id when it runs in a child process. */
  readonly pid: number | undefined;
  /** False once the store's process has exited without being asked to (no store call needed to know). */
  isRunning(): boolean;
  close(): Promise<void>;
}

const endpointOn = (port: number) => `http://127.0.0.1:${port}`;

const startInProcess = async (dataDir: string): Promise<EmbeddedStore> => {
  const server = await listenDynalite(dataDir);
  return { endpoint: endpointOn(server.port), pid: undefined, isRunning: () => true, close: () => server.close() };
};

const startChildProcess = async (dataDir: string): Promise<EmbeddedStore> => {
  const child = fork(fileURLToPath(new URL('./dynalite-server.ts', import.meta.url)), [SERVE_FLAG, dataDir], {
    // Node strips the types itself (quiet about it being new); only a Node without that needs the
    // loader, which is slower to start. Nothing is inherited from this process's own flags.
    execArgv: process.features.typescript ? ['--disable-warning=ExperimentalWarning'] : ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A process group of its own: a signal sent to the gateway's group must not stop the store while
    // the gateway still finishes its requests and writes their usage; the gateway closes it after.
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: StoreProcessMessage) => {
        if (message.kind === 'ready') resolve(message.port);
        else
          reject(
            new Error(
              `the embedded store failed to start: ${message.kind === 'failed' ? message.message : message.kind}`,
            ),
          );
      });
      // After the start, a failure to deliver `close` is followed by the forced kill below.
      child.on('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`the embedded store exited (code ${String(code)}) before it was ready`)),
      );
    });
    let closing = false;
    let running = true;
    child.once('exit', (code, signal) => {
      running = false;
      if (closing) return;
      const how = signal ? `was stopped by ${signal}` : `exited with code ${String(code)}`;
      log.error(
        `the embedded store (pid ${String(child.pid)}) ${how}: /health answers 503 and requests fail until model-gateway is restarted`,
        { code, signal },
      );
    });
    // The gateway's own handles decide when its process may exit, not the store's.
    child.unref();
    child.channel?.unref();
    return {
      endpoint: endpointOn(port),
      pid: child.pid,
      isRunning: () => running,
      close: async () => {
        closing = true;
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (child.connected) child.send({ kind: 'close' } satisfies StoreProcessMessage);
        else child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(force);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
};

/**
 * Starts the embedded DynamoDB-compatible engine on a free loopback port: LevelDB files under
 * `dataDir`, or memory only when `dataDir` is `memory`; in a child process or in this one.
 */
export const startEmbeddedStore = (
  dataDir: string,
  mode: EmbeddedStoreMode = 'child-process',
): Promise<EmbeddedStore> => (mode === 'child-process' ? startChildProcess(dataDir) : startInProcess(dataDir));

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

/**
 * Creates whichever of the gateway's tables the endpoint does not have yet. Sent as the gateway's own
 * store calls are (`store/operations.ts`), so the local runtime never loads the SDK's DynamoDB client
 * (about 30 MB of a process's memory).
 */
export const ensureTables = async (endpoint: string): Promise<void> => {
  const connection = signedConnection(directStoreTarget({ ...process.env, DYNAMODB_ENDPOINT: endpoint })!);
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = (await sendSigned(connection, 'ListTables', start ? { ExclusiveStartTableName: start } : {})) as Omit<
      ListTablesCommandOutput,
      '$metadata'
    >;
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);
  for (const table of tableNames) {
    if (!existing.has(physicalTableName(table))) await sendSigned(connection, 'CreateTable', createTableInput(table));
  }
};
