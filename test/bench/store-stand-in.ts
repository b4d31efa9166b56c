import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { physicalTableName, tableDefinitions } from '../../functions/shared/store/tables.js';

/**
 * DynamoDB's stand-in for the bench, a process of its own on the load core. Dynalite answers every
 * call but the writes of usage records, which this process checks, counts and answers itself, after
 * DynamoDB's usual latency. Dynalite spends about 0.14 ms of CPU on each item it writes
 * (its request validation, LevelDB's key encoding, its sorted tree), on the core that also runs the
 * load and the fake upstream: under 32-way load that core filled first, so requests/s measured the
 * stand-in rather than the gateway. On AWS that work is DynamoDB's, on none of the gateway's cores.
 * What the gateway does for a record (building, signing and sending the call, reading the answer) is
 * the same either way.
 */

/** Milliseconds before a write of usage records is answered: DynamoDB's single-digit latency. */
const BATCH_LATENCY_MS = Number(process.env.BENCH_STORE_BATCH_LATENCY_MS ?? 4);
const usageTable = physicalTableName('usage');
const { partitionKey, sortKey } = tableDefinitions.usage;

/** The key of every usage record taken: a record written twice is one record, as in DynamoDB. */
const records = new Set<string>();
/** The calls that wrote them. */
let calls = 0;

const engine = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
// Dynalite listens too, for the calls this process reads before knowing they are not its own.
await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
const enginePort = (engine.address() as AddressInfo).port;

type Item = Readonly<Record<string, { readonly S?: unknown }>>;

/** A usage record's key, or `undefined` for an item without one. */
const recordKey = (item: Item | undefined): string | undefined => {
  const partition = item?.[partitionKey]?.S;
  const sort = item?.[sortKey!]?.S;
  return typeof partition === 'string' && typeof sort === 'string' ? `${partition}\n${sort}` : undefined;
};

/**
 * The keys of the usage records a call writes (a BatchWriteItem of them, or a PutItem of one, which is
 * how a record that had no other to share a call with is sent), or `undefined` for any other call (another
 * table, a delete, a condition, an item without its key): such a call goes to dynalite, which validates it.
 */
const usageRecordKeys = (operation: string, body: string): string[] | undefined => {
  if (operation === 'PutItem') {
    const call = JSON.parse(body) as Record<string, unknown> & { TableName?: unknown; Item?: Item };
    const plain = Object.keys(call).every((member) => member === 'TableName' || member === 'Item');
    const key = recordKey(call.Item);
    return plain && call.TableName === usageTable && key !== undefined ? [key] : undefined;
  }
  const requestItems = (JSON.parse(body) as { RequestItems?: Record<string, { PutRequest?: { Item?: Item } }[]> })
    .RequestItems;
  const tables = Object.keys(requestItems ?? {});
  if (tables.length !== 1 || tables[0] !== usageTable) return undefined;
  const requests = requestItems![usageTable]!;
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > 25) return undefined;
  const keys: string[] = [];
  for (const request of requests) {
    const key = recordKey(request.PutRequest?.Item);
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return new Set(keys).size === keys.length ? keys : undefined;
};

/** Sends a call this process has read to dynalite, and its answer back. */
const forward = (request: http.IncomingMessage, body: Buffer, response: http.ServerResponse): void => {
  const upstream = http.request(
    { host: '127.0.0.1', port: enginePort, method: request.method, path: request.url, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', () => response.destroy());
  upstream.end(body);
};

/** The operations that may write usage records: every other call is dynalite's unread. */
const RECORD_WRITES = new Map([
  ['DynamoDB_20120810.BatchWriteItem', 'BatchWriteItem'],
  ['DynamoDB_20120810.PutItem', 'PutItem'],
]);

const server = http.createServer((request, response) => {
  const operation = RECORD_WRITES.get(String(request.headers['x-amz-target']));
  if (!operation) {
    engine.emit('request', request, response);
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    let keys: string[] | undefined;
    try {
      keys = usageRecordKeys(operation, body.toString('utf8'));
    } catch {
      keys = undefined;
    }
    if (!keys) {
      forward(request, body, response);
      return;
    }
    calls += 1;
    for (const key of keys) records.add(key);
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(operation === 'PutItem' ? '{}' : '{"UnprocessedItems":{}}');
    }, BATCH_LATENCY_MS);
  });
});
server.keepAliveTimeout = 10 * 60_000;
server.listen(0, '127.0.0.1');
await once(server, 'listening');

process.send!({ kind: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
process.on('message', (message: { kind: string }) => {
  if (message.kind === 'records') process.send!({ kind: 'records', records: records.size, calls });
});
process.on('disconnect', () => process.exit(0));
