import { readEverySpend } from '../../functions/shared/accounting/spend.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { useInMemoryStore } from '../support/in-memory-store.js';
import { onStoreRequests, type StoreInput } from '../support/store-wire.js';

/**
 * Every account's spending from one read of the spend table, as the account list takes it: the read
 * pages on to the end, sums each account's shards (shard 0 is the account's own id, shard n its id
 * and `#n`), and waits out the store's throttling.
 */

useInMemoryStore();

const number = (value: number) => ({ N: String(value) });
const shard = (id: string, used: number, committed: number) => ({
  id: { S: id },
  used: number(used),
  committed: number(committed),
});

test('pages through the table, sums each account over its shards, and waits out a throttled page', async () => {
  const scans: StoreInput[] = [];
  let throttled = false;
  const stop = onStoreRequests((command, input) => {
    if (command !== 'ScanCommand') return undefined;
    scans.push(input);
    if (!input.ExclusiveStartKey)
      return {
        status: 200,
        body: {
          Items: [shard('acct_a', 1.5, 2), shard('acct_b#7', 0.25, 0.25), shard('acct_a#3', 0.1, 0.1)],
          LastEvaluatedKey: { id: { S: 'acct_a#3' } },
        },
      };
    if (!throttled) {
      throttled = true;
      return {
        status: 400,
        body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow down' },
      };
    }
    // An account id may itself hold a `#` that is no shard's.
    return { status: 200, body: { Items: [shard('acct_b', 0.5, 0.75), shard('team#blue', 3, 3)] } };
  });
  try {
    const spending = await readEverySpend();
    expect(Object.fromEntries(spending)).toEqual({
      acct_a: { used: 1.6, committed: 2.1 },
      acct_b: { used: 0.75, committed: 1 },
      'team#blue': { used: 3, committed: 3 },
    });
  } finally {
    stop();
  }
  expect(throttled).toBe(true);
  expect(scans.map((scan) => scan.ExclusiveStartKey ?? null)).toEqual([
    null,
    { id: { S: 'acct_a#3' } },
    { id: { S: 'acct_a#3' } },
  ]);
  for (const scan of scans) expect(scan).toMatchObject({ TableName: physicalTableName('spend'), ConsistentRead: true });
});
