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

/** The input fields that hold values (marshalled), as lib-dynamodb's commands name them. */
const VALUE_FIELDS = new Set(['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey']);
/** The output fields that hold one item, or (`Items`) a list of them. */
const ITEM_FIELDS = new Set(['Item', 'Attributes', 'LastEvaluatedKey']);
/** Legacy parameters whose values sit deeper than the marshalling here reaches: refused, not sent half-marshalled. */
const LEGACY_FIELDS = new Set(['AttributeUpdates', 'Expected', 'KeyConditions', 'QueryFilter', 'ScanFilter']);

/** An input as the wire takes it: its values in attribute-value form, undefined fields left out. */
const marshalled = <Input extends object>(input: Input): never => {
  const sent: Item = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (LEGACY_FIELDS.has(name)) throw new TypeError(`${name} is not supported: use an expression.`);
    sent[name] = VALUE_FIELDS.has(name) ? toAttributeMap(value as Item) : value;
  }
  return sent as never;
};

/** An output as the document client gives it: items unmarshalled. */
const unmarshalled = <Output>(output: object): Output => {
  const read: Item = {};
  for (const [name, value] of Object.entries(output)) {
    if (value === undefined) continue;
    if (name === 'Items') read[name] = (value as AttributeMap[]).map((item) => unmarshall(item));
    else read[name] = ITEM_FIELDS.has(name) ? unmarshall(value as AttributeMap) : value;
  }
  return read as Output;
};

export const getItem = async (input: GetCommandInput): Promise<Output<GetCommandOutput>> =>
  unmarshalled(await sendOperation('GetItem', marshalled(input)));

export const putItem = async (input: PutCommandInput): Promise<Output<PutCommandOutput>> =>
  unmarshalled(await sendOperation('PutItem', marshalled(input)));

export const updateItem = async (input: UpdateCommandInput): Promise<Output<UpdateCommandOutput>> =>
  unmarshalled(await sendOperation('UpdateItem', marshalled(input)));

export const deleteItem = async (input: DeleteCommandInput): Promise<Output<DeleteCommandOutput>> =>
  unmarshalled(await sendOperation('DeleteItem', marshalled(input)));

/** One page of a query: `LastEvaluatedKey` says where the next starts. */
export const queryPage = async (input: QueryCommandInput): Promise<Output<QueryCommandOutput>> =>
  unmarshalled(await sendOperation('Query', marshalled(input)));

/** One page of a scan: `LastEvaluatedKey` says where the next starts. */
export const scanPage = async (input: ScanCommandInput): Promise<Output<ScanCommandOutput>> =>
  unmarshalled(await sendOperation('Scan', marshalled(input)));

type KeysAndAttributes = NonNullable<BatchGetCommandInput['RequestItems']>[string];

/** Each table's request with its keys marshalled (or, coming back unprocessed, unmarshalled). */
const withKeys = (
  requests: Record<string, { Keys?: object[] }> | undefined,
  convert: (key: never) => object,
): Record<string, KeysAndAttributes> | undefined =>
  requests &&
  Object.fromEntries(
    Object.entries(requests).map(([table, request]) => [
      table,
      { ...request, Keys: request.Keys?.map((key) => convert(key as never)) } as KeysAndAttributes,
    ]),
  );

/** Items of several tables by key; `UnprocessedKeys` holds those the store did not get to. */
export const batchGetItems = async (input: BatchGetCommandInput): Promise<Output<BatchGetCommandOutput>> => {
  const { Responses, UnprocessedKeys, ...rest } = await sendOperation('BatchGetItem', {
    ...input,
    RequestItems: withKeys(input.RequestItems, toAttributeMap) as never,
  });
  return {
    ...rest,
    ...(Responses && {
      Responses: Object.fromEntries(
        Object.entries(Responses).map(([table, items]) => [table, items.map((item) => unmarshall(item))]),
      ),
    }),
    ...(UnprocessedKeys && { UnprocessedKeys: withKeys(UnprocessedKeys, unmarshall) }),
  };
};
