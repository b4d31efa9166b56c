import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { usageItem } from '../../functions/shared/accounting/usage-records.js';
import { toAttributeMap } from '../../functions/shared/store/attribute-values.js';
import { resetStore, store } from '../support/sdk-store.js';
import { getItem } from '../../functions/shared/store/documents.js';
import { sendOperation } from '../../functions/shared/store/operations.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { ensureTables, startEmbeddedStore } from '../../infra/local/embedded-store.js';
import { usageRecordWith } from '../support/usage-record.js';
import { concurrently } from './concurrently.js';

/**
 * `npm run bench:store`: the CPU this process spends per DynamoDB call of the kinds the request path
 * makes, through the SDK's document client and as the gateway's own store calls
 * (`store/operations.ts`, `store/documents.ts`), against the embedded store in its own process (as
 * DynamoDB is a separate service), one at a time and 32 at once. The store's own CPU is not counted.
 */
const CALLS = Number(process.env.STORE_CALLS ?? 3000);
const embedded = await startEmbeddedStore('memory', 'child-process');
await ensureTables(embedded.endpoint);
process.env.DYNAMODB_ENDPOINT = embedded.endpoint;
resetStore();

let sequence = 0;
/** A fresh usage record, as the request path writes one. */
const usageRecordItem = () =>
  usageItem(usageRecordWith({ requestId: `bench-${(sequence += 1)}`, accountId: 'acct_bench' }));
/** A conditional charge to one of 50 counters, as admission sends one; values plain. */
const charge = () => ({
  TableName: physicalTableName('counters'),
  Key: { id: `rpm#account#bench#${sequence % 50}` },
  ConditionExpression: 'attribute_not_exists(#count) OR #count <= :ceiling',
  UpdateExpression: 'ADD #count :amount SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
  ExpressionAttributeNames: { '#count': 'count', '#expiresAt': 'expiresAt' },
  ExpressionAttributeValues: { ':amount': 1, ':ceiling': 1e12, ':expiresAt': 1 },
  ReturnValues: 'UPDATED_NEW' as const,
});

/** Each call twice: through the SDK's document client, and as the gateway's own store call the request path makes. */
const calls = {
  PutItem: () => store().send(new PutCommand({ TableName: physicalTableName('usage'), Item: usageRecordItem() })),
  'UpdateItem (conditional ADD)': () => store().send(new UpdateCommand(charge())),
  "PutItem (the gateway's, as the usage record is sent)": () =>
    sendOperation('PutItem', { TableName: physicalTableName('usage'), Item: toAttributeMap(usageRecordItem()) }),
  "UpdateItem (the gateway's, conditional ADD, as a charge is sent)": () => {
    const input = charge();
    return sendOperation('UpdateItem', {
      ...input,
      Key: toAttributeMap(input.Key),
      ExpressionAttributeValues: toAttributeMap(input.ExpressionAttributeValues),
    });
  },
  GetItem: () =>
    store().send(new GetCommand({ TableName: physicalTableName('counters'), Key: { id: 'rpm#account#bench#1' } })),
  "GetItem (the gateway's, as a key is read)": () =>
    getItem({ TableName: physicalTableName('counters'), Key: { id: 'rpm#account#bench#1' } }),
};

const measure = async (call: () => Promise<unknown>, concurrency: number): Promise<number> => {
  const before = process.cpuUsage();
  await concurrently(CALLS, concurrency, call);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
};

console.log('| call | CPU per call, c=1 | CPU per call, c=32 |\n|---|---|---|');
for (const [name, call] of Object.entries(calls)) {
  await measure(call, 8); // warm up
  const alone = await measure(call, 1);
  const loaded = await measure(call, 32);
  console.log(`| ${name} | ${(alone / 1000).toFixed(3)} ms | ${(loaded / 1000).toFixed(3)} ms |`);
}
resetStore();
await embedded.close();
