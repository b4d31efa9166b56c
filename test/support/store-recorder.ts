import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  physicalTableName,
  tableDefinitions,
  tableNames,
  type TableDefinition,
} from '../../functions/shared/store/tables.js';
import { onStoreRequests, type StoreInput } from './store-wire.js';

/**
 * Sees every command the gateway sends to the store, on the wire (`store-wire.ts`), whichever way it
 * was sent: items and keys in attribute-value form, read back as plain items. Commands are named as
 * the low-level client names them (`UpdateItemCommand`); a retried command is seen once per attempt.
 */
type Input = StoreInput;
type Item = Record<string, unknown>;

const definitionOf = (physicalName: string): [string, TableDefinition] | undefined => {
  const name = tableNames.find((table) => physicalTableName(table) === physicalName);
  return name ? [name, tableDefinitions[name]] : undefined;
};

// Rate-limit windows carry their start (epoch ms) in the id; the same shard of every window is one
// key here, so a run that crosses a minute is counted as if it had not.
const withoutWindow = (value: string) => value.replace(/#\d{13}(?=#|$)/, '#<window>');

const ATTRIBUTE_VALUE_TYPES = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL']);

/** Whether an item (or key) is in DynamoDB's attribute-value form: the hot writes marshal their own. */
const isMarshalled = (item: Item) =>
  Object.values(item).every((value) => {
    const entries = value && typeof value === 'object' ? Object.keys(value) : [];
    return entries.length === 1 && ATTRIBUTE_VALUE_TYPES.has(entries[0]!);
  });

/** The item as the code wrote it, whichever client sent it. */
const plain = (item: Item): Item => (isMarshalled(item) ? unmarshall(item as never) : item);

/** The partition keys one item write lands on: the table's, and each index's whose key the item has. */
const partitionsWritten = (physicalName: string, written: Item): string[] => {
  const item = plain(written);
  const found = definitionOf(physicalName);
  if (!found) return [`${physicalName}:?`];
  const [name, definition] = found;
  const keys = [`${name}:${withoutWindow(String(item[definition.partitionKey]))}`];
  for (const index of definition.indexes ?? []) {
    const value = item[index.partitionKey];
    if (typeof value === 'string') keys.push(`${name}.${index.name}:${withoutWindow(value)}`);
  }
  return keys;
};

const writesOf = (command: string, input: Input): string[] => {
  switch (command) {
    case 'PutItemCommand':
      return partitionsWritten(input.TableName as string, input.Item as Item);
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      // The index keys of an updated item are not in the request; the gateway updates only items
      // without index keys on the hot path (counters, spend).
      return partitionsWritten(input.TableName as string, input.Key as Item);
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, Input>[]).flatMap((entry) => {
        const [kind, operation] = Object.entries(entry)[0]!;
        return kind === 'Put'
          ? writesOf('PutItemCommand', operation)
          : kind === 'ConditionCheck'
            ? []
            : writesOf('UpdateItemCommand', operation);
      });
    case 'BatchWriteItemCommand':
      return Object.entries(
        (input.RequestItems ?? {}) as Record<string, Record<string, { Item?: Item; Key?: Item }>[]>,
      ).flatMap(([table, requests]) =>
        requests.flatMap((request) => {
          const put = request.PutRequest?.Item;
          const key = request.DeleteRequest?.Key;
          return put ? partitionsWritten(table, put) : key ? partitionsWritten(table, key) : [];
        }),
      );
    default:
      return [];
  }
};

export interface WriteRecorder {
  /** Writes per partition key (table or `table.index`, then the key), since the recorder started. */
  readonly writes: Map<string, number>;
  /**
   * Conditional updates per partition key: each is one pick of that key (a shard charged for a
   * request, or for the requests of one loop turn together); the key's other writes follow from it.
   */
  readonly picks: Map<string, number>;
  /** Store commands by name (GetItemCommand, UpdateItemCommand, …), reads included. */
  readonly commands: Map<string, number>;
  /** Store commands by name and table: `GetItemCommand keys`. */
  readonly calls: Map<string, number>;
  /** Writes per partition key in each wall-clock second (epoch seconds) of the run. */
  readonly perSecond: Map<string, Map<number, number>>;
  totalWrites(): number;
  stop(): void;
}

/** Counts, from now on, every write per partition key the gateway sends to the store. */
export const recordWrites = (): WriteRecorder => {
  const writes = new Map<string, number>();
  const picks = new Map<string, number>();
  const commands = new Map<string, number>();
  const calls = new Map<string, number>();
  const perSecond = new Map<string, Map<number, number>>();
  const stop = onStoreRequests((command, input) => {
    const second = Math.floor(Date.now() / 1000);
    commands.set(command, (commands.get(command) ?? 0) + 1);
    const table = typeof input.TableName === 'string' ? (definitionOf(input.TableName)?.[0] ?? input.TableName) : '*';
    calls.set(`${command} ${table}`, (calls.get(`${command} ${table}`) ?? 0) + 1);
    const picked = command === 'UpdateItemCommand' && typeof input.ConditionExpression === 'string';
    for (const key of writesOf(command, input)) {
      writes.set(key, (writes.get(key) ?? 0) + 1);
      if (picked) picks.set(key, (picks.get(key) ?? 0) + 1);
      let seconds = perSecond.get(key);
      if (!seconds) perSecond.set(key, (seconds = new Map()));
      seconds.set(second, (seconds.get(second) ?? 0) + 1);
    }
  });
  return {
    writes,
    picks,
    commands,
    calls,
    perSecond,
    totalWrites: () => [...writes.values()].reduce((sum, count) => sum + count, 0),
    stop,
  };
};

export interface ThrottleInjector {
  /** How many commands were refused so far. */
  readonly injected: number;
  stop(): void;
}

/**
 * Makes the store refuse the next `count` commands that `matches` selects with a DynamoDB throttling
 * error (`ProvisionedThroughputExceededException` by default), as an over-busy partition does.
 */
export const injectThrottles = (options: {
  readonly count: number;
  readonly matches: (command: string, input: Input) => boolean;
  readonly errorName?: 'ProvisionedThroughputExceededException' | 'ThrottlingException';
}): ThrottleInjector => {
  let injected = 0;
  const stop = onStoreRequests((command, input) => {
    if (injected >= options.count || !options.matches(command, input)) return;
    injected += 1;
    // DynamoDB's own answer, so the gateway's parsing of it is part of what is tested.
    return {
      status: 400,
      body: {
        __type: `com.amazonaws.dynamodb.v20120810#${options.errorName ?? 'ProvisionedThroughputExceededException'}`,
        message: 'Throughput exceeds the current capacity for one or more partitions (injected).',
      },
    };
  });
  return {
    get injected() {
      return injected;
    },
    stop,
  };
};
