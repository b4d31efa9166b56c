import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { toAttributeMap } from './attribute-values.js';
import { sendOperation } from './operations.js';

/**
 * The store's operations on plain items, as lib-dynamodb's document client takes and gives them:
 * keys, items and expression values marshalled on the way out (as `marshall` with the gateway's
 * options would, `attribute-values.ts`), items unmarshalled on the way back.
 */

type Item = Record<string, unknown>;
type AttributeMap = Record<string, AttributeValue>;
type Output<Full> = Omit<Full, '$metadata'>;

const toMap = (item: Item | undefined): AttributeMap | undefined => (item ? toAttributeMap(item) : undefined);
const fromMap = (map: AttributeMap | undefined): Item | undefined => (map ? unmarshall(map) : undefined);

/** Fields left out when undefined, so that the body sent holds only what the caller set. */
const defined = <T extends object>(value: T): T => {
  for (const key of Object.keys(value)) if ((value as Item)[key] === undefined) delete (value as Item)[key];
  return value;
};

export const getItem = async (input: GetCommandInput): Promise<Output<GetCommandOutput>> => {
  const { Item, ...rest } = await sendOperation('GetItem', { ...input, Key: toAttributeMap(input.Key ?? {}) });
  return defined({ ...rest, Item: fromMap(Item) });
};

export const putItem = async (input: PutCommandInput): Promise<Output<PutCommandOutput>> => {
  const { Attributes, ...rest } = await sendOperation(
    'PutItem',
    defined({
      ...input,
      Item: toAttributeMap(input.Item ?? {}),
      ExpressionAttributeValues: toMap(input.ExpressionAttributeValues),
    }),
  );
  return defined({ ...rest, Attributes: fromMap(Attributes) });
};

export const updateItem = async (input: UpdateCommandInput): Promise<Output<UpdateCommandOutput>> => {
  const { AttributeUpdates, ...plain } = input;
  if (AttributeUpdates) throw new TypeError('AttributeUpdates is not supported: use an UpdateExpression.');
  const { Attributes, ...rest } = await sendOperation(
    'UpdateItem',
    defined({
      ...plain,
      Key: toAttributeMap(input.Key ?? {}),
      ExpressionAttributeValues: toMap(input.ExpressionAttributeValues),
    }),
  );
  return defined({ ...rest, Attributes: fromMap(Attributes) });
};

export const deleteItem = async (input: DeleteCommandInput): Promise<Output<DeleteCommandOutput>> => {
  const { Attributes, ...rest } = await sendOperation(
    'DeleteItem',
    defined({
      ...input,
      Key: toAttributeMap(input.Key ?? {}),
      ExpressionAttributeValues: toMap(input.ExpressionAttributeValues),
    }),
  );
  return defined({ ...rest, Attributes: fromMap(Attributes) });
};

/** One page of a query: `LastEvaluatedKey` says where the next starts. */
export const queryPage = async (input: QueryCommandInput): Promise<Output<QueryCommandOutput>> => {
  const { KeyConditions, QueryFilter, ...plain } = input;
  if (KeyConditions || QueryFilter)
    throw new TypeError('KeyConditions and QueryFilter are not supported: use expressions.');
  const { Items, LastEvaluatedKey, ...rest } = await sendOperation(
    'Query',
    defined({
      ...plain,
      ExpressionAttributeValues: toMap(input.ExpressionAttributeValues),
      ExclusiveStartKey: toMap(input.ExclusiveStartKey),
    }),
  );
  return defined({
    ...rest,
    Items: Items?.map((item) => unmarshall(item)),
    LastEvaluatedKey: fromMap(LastEvaluatedKey),
  });
};

/** One page of a scan: `LastEvaluatedKey` says where the next starts. */
export const scanPage = async (input: ScanCommandInput): Promise<Output<ScanCommandOutput>> => {
  const { ScanFilter, ...plain } = input;
  if (ScanFilter) throw new TypeError('ScanFilter is not supported: use a FilterExpression.');
  const { Items, LastEvaluatedKey, ...rest } = await sendOperation(
    'Scan',
    defined({
      ...plain,
      ExpressionAttributeValues: toMap(input.ExpressionAttributeValues),
      ExclusiveStartKey: toMap(input.ExclusiveStartKey),
    }),
  );
  return defined({
    ...rest,
    Items: Items?.map((item) => unmarshall(item)),
    LastEvaluatedKey: fromMap(LastEvaluatedKey),
  });
};

type KeysAndAttributes = NonNullable<BatchGetCommandInput['RequestItems']>[string];

/** Items of several tables by key; `UnprocessedKeys` holds those the store did not get to. */
export const batchGetItems = async (input: BatchGetCommandInput): Promise<Output<BatchGetCommandOutput>> => {
  const marshalled = Object.fromEntries(
    Object.entries(input.RequestItems ?? {}).map(([table, request]) => [
      table,
      { ...request, Keys: request.Keys?.map((key) => toAttributeMap(key)) },
    ]),
  );
  const { Responses, UnprocessedKeys, ...rest } = await sendOperation(
    'BatchGetItem',
    defined({ ...input, RequestItems: marshalled }),
  );
  return defined({
    ...rest,
    Responses:
      Responses &&
      Object.fromEntries(
        Object.entries(Responses).map(([table, items]) => [table, items.map((item) => unmarshall(item))]),
      ),
    UnprocessedKeys:
      UnprocessedKeys &&
      Object.fromEntries(
        Object.entries(UnprocessedKeys).map(([table, request]): [string, KeysAndAttributes] => [
          table,
          { ...request, Keys: request.Keys?.map((key) => unmarshall(key)) } as KeysAndAttributes,
        ]),
      ),
  });
};
