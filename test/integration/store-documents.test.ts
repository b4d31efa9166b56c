import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import {
  batchGetItems,
  deleteItem,
  getItem,
  putItem,
  queryPage,
  scanPage,
  updateItem,
} from '../../functions/shared/store/documents.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store.js';
import { resetStore, store } from '../support/sdk-store.js';
import { misreadByJsonParse } from '../support/json-parse-hazard.js';

/**
 * The gateway's store calls on plain items, held to lib-dynamodb's document client, the reference
 * for what they take and give: whatever one writes the other reads back the same, and each operation
 * answers as the document client answers the same operation on the same data.
 */

let embedded: EmbeddedStore;
const saved = process.env.DYNAMODB_ENDPOINT;
const usage = physicalTableName('usage');

beforeAll(async () => {
  embedded = await startEmbeddedStore('memory', 'in-process');
  await ensureTables(embedded.endpoint);
  process.env.DYNAMODB_ENDPOINT = embedded.endpoint;
  resetStore();
});

afterAll(async () => {
  resetStore();
  if (saved === undefined) delete process.env.DYNAMODB_ENDPOINT;
  else process.env.DYNAMODB_ENDPOINT = saved;
  await embedded.close();
});

/** A member name the store and the SDK, both parsing JSON answers, can read back (see misreadByJsonParse). */
const memberName = (maxLength: number) =>
  fc.string({ minLength: 1, maxLength }).filter((name) => !misreadByJsonParse(name));

/** What the store keeps of a plain value: strings, finite numbers, booleans, null, maps and lists. */
const plainValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.integer(),
    fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 })
      // DynamoDB keeps magnitudes from 1e-130 up, and no negative zero.
      .filter((n) => (n === 0 ? !Object.is(n, -0) : Math.abs(n) >= 1e-120)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(memberName(8), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/**
 * Whether a member named `__proto__` sits anywhere in a value. util-dynamodb assigns members by name,
 * so it takes one for the object's prototype (and the embedded engine refuses one); the gateway never
 * stores one, since its request schemas drop such members at the door.
 */
const holdsProtoMember = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  (Object.hasOwn(value, '__proto__') || Object.values(value).some(holdsProtoMember));

const attributes = fc
  .dictionary(
    memberName(12).filter((name) => name !== 'partition' && name !== 'sk'),
    plainValue,
    { maxKeys: 6 },
  )
  .filter((fields) => !holdsProtoMember(fields));

let sequence = 0;
const keyOf = () => ({ partition: 'documents-test', sk: `item-${(sequence += 1)}` });
/** Numbers as the store keeps them: DynamoDB keeps 38 significant digits, a double has 17 at most. */
const stored = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
/** An answer without what differs per call. */
const answer = (output: object) => {
  const { $metadata, ...rest } = output as { $metadata?: unknown };
  void $metadata;
  return rest;
};

describe('store calls on plain items', () => {
  test('what either writes, the other reads back the same', async () => {
    await fc.assert(
      fc.asyncProperty(attributes, async (fields) => {
        const ours = { ...keyOf(), ...fields };
        await putItem({ TableName: usage, Item: ours });
        const { Item: readBySdk } = await store().send(
          new GetCommand({ TableName: usage, Key: { partition: ours.partition, sk: ours.sk }, ConsistentRead: true }),
        );
        expect(readBySdk).toEqual(stored(ours));

        const theirs = { ...keyOf(), ...fields };
        await store().send(new PutCommand({ TableName: usage, Item: theirs }));
        const { Item: readByUs } = await getItem({
          TableName: usage,
          Key: { partition: theirs.partition, sk: theirs.sk },
          ConsistentRead: true,
        });
        expect(readByUs).toEqual(stored(theirs));
      }),
      { numRuns: 60 },
    );
  });

  test('a missing item is no Item, as the document client answers', async () => {
    const key = { TableName: usage, Key: keyOf(), ConsistentRead: true };
    expect(answer(await getItem(key))).toEqual(answer(await store().send(new GetCommand(key))));
    expect(await getItem(key)).toEqual({});
  });

  test('updates, conditional puts and deletes answer with the attributes the document client gives', async () => {
    const ours = keyOf();
    const theirs = keyOf();
    const update = (Key: object) => ({
      TableName: usage,
      Key,
      UpdateExpression: 'SET #n = :n, #m = :m ADD #c :one',
      ExpressionAttributeNames: { '#n': 'name', '#m': 'meta', '#c': 'count' },
      ExpressionAttributeValues: { ':n': 'first', ':m': { tags: ['a', 'b'], nested: { deep: true } }, ':one': 1 },
      ReturnValues: 'ALL_NEW' as const,
    });
    const updated = await updateItem(update(ours));
    const reference = await store().send(new UpdateCommand(update(theirs)));
    expect({ ...updated.Attributes, sk: 'x' }).toEqual({ ...reference.Attributes, sk: 'x' });

    const conditional = (Key: { partition: string; sk: string }) => ({
      TableName: usage,
      Item: { ...Key, name: 'second' },
      ConditionExpression: '#n = :expected',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':expected': 'not-this' },
    });
    const refused = await putItem(conditional(ours)).catch((error: Error) => error);
    const refusedBySdk = await store()
      .send(new PutCommand(conditional(theirs)))
      .catch((error: Error) => error);
    expect((refused as Error).name).toBe('ConditionalCheckFailedException');
    expect((refused as Error).name).toBe((refusedBySdk as Error).name);

    const removed = await deleteItem({ TableName: usage, Key: ours, ReturnValues: 'ALL_OLD' });
    const removedBySdk = await store().send(
      new DeleteCommand({ TableName: usage, Key: theirs, ReturnValues: 'ALL_OLD' }),
    );
    expect({ ...removed.Attributes, sk: 'x' }).toEqual({ ...removedBySdk.Attributes, sk: 'x' });
    expect(removed.Attributes).toMatchObject({ name: 'first', count: 1, meta: { tags: ['a', 'b'] } });
  });

  test('query and scan pages answer as the document client does, page by page', async () => {
    const partition = `documents-pages-${sequence}`;
    for (let index = 0; index < 7; index += 1) {
      await putItem({ TableName: usage, Item: { partition, sk: `row-${index}`, index, label: `row ${index}` } });
    }
    const query = (ExclusiveStartKey?: Record<string, unknown>) => ({
      TableName: usage,
      KeyConditionExpression: '#p = :p',
      FilterExpression: '#i <> :skip',
      ExpressionAttributeNames: { '#p': 'partition', '#i': 'index' },
      ExpressionAttributeValues: { ':p': partition, ':skip': 3 },
      Limit: 3,
      ConsistentRead: true,
      ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
    });
    let start: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const ours = await queryPage(query(start));
      const theirs = await store().send(new QueryCommand(query(start)));
      expect(answer(ours)).toEqual(answer(theirs));
      start = ours.LastEvaluatedKey;
      pages += 1;
    } while (start);
    expect(pages).toBeGreaterThan(1);

    const scan = (ExclusiveStartKey?: Record<string, unknown>) => ({
      TableName: usage,
      FilterExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': 'partition' },
      ExpressionAttributeValues: { ':p': partition },
      Limit: 5,
      ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
    });
    start = undefined;
    do {
      const ours = await scanPage(scan(start));
      const theirs = await store().send(new ScanCommand(scan(start)));
      expect(answer(ours)).toEqual(answer(theirs));
      start = ours.LastEvaluatedKey;
    } while (start);
  });

  test('a batch read answers with the items by table, as the document client does', async () => {
    const partition = `documents-batch-${sequence}`;
    for (let index = 0; index < 3; index += 1) {
      await putItem({ TableName: usage, Item: { partition, sk: `row-${index}`, index } });
    }
    const request = {
      RequestItems: {
        [usage]: {
          Keys: [0, 1, 2, 9].map((index) => ({ partition, sk: `row-${index}` })),
          ConsistentRead: true,
        },
      },
    };
    const ours = await batchGetItems(request);
    const theirs = await store().send(new BatchGetCommand(request));
    const byIndex = (items: Record<string, unknown>[] = []) =>
      [...items].sort((a, b) => Number(a.index) - Number(b.index));
    expect(byIndex(ours.Responses?.[usage])).toEqual(byIndex(theirs.Responses?.[usage]));
    expect(byIndex(ours.Responses?.[usage]).map((item) => item.index)).toEqual([0, 1, 2]);
    expect(ours.UnprocessedKeys).toEqual(theirs.UnprocessedKeys);
  });

  test('legacy condition parameters are refused rather than sent unmarshalled', async () => {
    await expect(
      updateItem({ TableName: usage, Key: keyOf(), AttributeUpdates: { name: { Action: 'PUT', Value: 'x' } } }),
    ).rejects.toThrow(TypeError);
    await expect(
      queryPage({
        TableName: usage,
        KeyConditions: { partition: { ComparisonOperator: 'EQ', AttributeValueList: ['x'] } },
      }),
    ).rejects.toThrow(TypeError);
  });
});
