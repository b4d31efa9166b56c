import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dynamoDbHostStore } from './dynamodb-host-store.js';
import { fakeHost } from './fake-host.js';
import { memoryHostStore, type FakeHostStore } from './fake-host-store.js';
import { startLocalSessionsTable } from './fake-sessions-table.js';

/**
 * The fake upstream as its own process (`tsx test/support/fake-upstream/fake-upstream-process.ts`),
 * the host the fixtures Lambda function also runs: FAKE_UPSTREAM_TOKEN guards its control API, PORT
 * picks the port (0 or unset: a free one), HOST the address (loopback unless told).
 * FAKE_UPSTREAM_STORE=table keeps the sessions in a DynamoDB table on an in-memory local store, as
 * the Lambda function keeps them in its table; `memory` (the default) in plain memory. Prints
 * `fake upstream listening on <url>` once it serves, and stops on SIGTERM or SIGINT.
 */
const token = process.env.FAKE_UPSTREAM_TOKEN ?? '';
const storeKind = process.env.FAKE_UPSTREAM_STORE ?? 'memory';
if (storeKind !== 'memory' && storeKind !== 'table') throw new Error('FAKE_UPSTREAM_STORE takes memory or table.');

const table = storeKind === 'table' ? await startLocalSessionsTable() : undefined;
const store: FakeHostStore = table ? dynamoDbHostStore(table.client, table.tableName) : memoryHostStore();
const server = createServer(fakeHost(store, token));
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`fake upstream listening on http://${address}:${port} (sessions in ${storeKind})`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => void (table?.store.close() ?? Promise.resolve()).then(() => process.exit(0)));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
