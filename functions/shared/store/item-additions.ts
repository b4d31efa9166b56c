import { toAttributeMap } from './attribute-values.js';
import { lingerWhereShared } from './batched-puts.js';
import { sendOperation, THROTTLING_RETRIED_HERE } from './operations.js';
import { retryThrottled } from './throttle-retry.js';
import { turnBatch, type Settled } from './turn-batch.js';

/**
 * Unconditional additions to numeric attributes of one item (a counter's correction, a quota's
 * settlement, a refused admission's give-back). Addition commutes, so the additions that requests
 * make to the same item in one loop turn (where the process is shared, within a linger) are summed
 * into one UpdateItem: the item ends exactly where the separate updates would have left it.
 */
export interface ItemAddition {
  readonly table: string;
  readonly key: Readonly<Record<string, string>>;
  /** Attribute → amount to add (negative to subtract). */
  readonly add: Readonly<Record<string, number>>;
  /** Attributes set only where the item has none yet (an expiry). */
  readonly setIfAbsent?: Readonly<Record<string, number | string>>;
  /** Applied to each sum (USD amounts: so that float noise does not accumulate). */
  readonly round?: (value: number) => number;
  /**
   * One name for the item and the addition's shape (attributes, expiry, rounding), where the caller
   * already holds one: additions under the same name are summed. Without it, one is made of the fields.
   */
  readonly id?: string;
}

const identity = (value: number) => value;

/** One UpdateItem for additions that all go to one item with the same attributes. */
const sendSummed = async (additions: readonly ItemAddition[]): Promise<readonly Settled<void>[]> => {
  const [first] = additions as [ItemAddition, ...ItemAddition[]];
  const round = first.round ?? identity;
  const sums = Object.keys(first.add).map(
    (name) => [name, round(additions.reduce((sum, addition) => sum + (addition.add[name] ?? 0), 0))] as const,
  );
  const done = additions.map(() => ({ ok: true, value: undefined }) as const);
  // Additions that cancel out leave the item as it is: nothing to write.
  if (sums.every(([, sum]) => sum === 0)) return done;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds = sums.map(([name, sum], index) => {
    names[`#a${index}`] = name;
    values[`:a${index}`] = sum;
    return `#a${index} :a${index}`;
  });
  const sets = Object.entries(first.setIfAbsent ?? {}).map(([name, value], index) => {
    names[`#s${index}`] = name;
    values[`:s${index}`] = value;
    return `#s${index} = if_not_exists(#s${index}, :s${index})`;
  });
  await retryThrottled(() =>
    sendOperation(
      'UpdateItem',
      {
        TableName: first.table,
        Key: toAttributeMap(first.key),
        UpdateExpression: `ADD ${adds.join(', ')}${sets.length > 0 ? ` SET ${sets.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: toAttributeMap(values),
      },
      THROTTLING_RETRIED_HERE,
    ),
  );
  return done;
};

// No answer waits on an addition (corrections and settlements come after the response, give-backs
// after a refusal): where one process serves many invocations they linger like usage records, and
// one write carries what the requests of those milliseconds added to the item.
const gathered = turnBatch(sendSummed, { followInFlight: true, lingerMs: lingerWhereShared });

/**
 * Adds to an item, together with the other additions to the same item asked for in this loop turn.
 * Resolves once the sum is stored; rejects with the store's error (throttling retried first).
 */
export const addToItem = (addition: ItemAddition): Promise<void> =>
  gathered(
    addition.id ??
      JSON.stringify([
        addition.table,
        addition.key,
        Object.keys(addition.add),
        addition.setIfAbsent ?? null,
        addition.round?.name ?? '',
      ]),
    addition,
  );
