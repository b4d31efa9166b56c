import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { servesConcurrentInvocations } from '../aws/concurrent-invocations.js';
import { promiseOf } from '../promise-of.js';
import { toAttributeMap } from './attribute-values.js';
import { fromStoreJson, sendSerialized, storeJson, THROTTLING_RETRIED_HERE } from './operations.js';
import {
  BOOKKEEPING_RETRY,
  JITTERED_BACKOFF,
  jitteredDelay,
  retryThrottled,
  UnprocessedError,
} from './throttle-retry.js';
import { turnBatch, type Settled } from './turn-batch.js';

/** The most items one BatchWriteItem takes. */
const BATCH_LIMIT = 25;

export interface ItemPut {
  readonly table: string;
  readonly item: Readonly<Record<string, unknown>>;
  /** The names of the table's key attributes: one batch cannot hold two puts of one item. */
  readonly keyNames: readonly string[];
}

/**
 * A put as it is sent: its item marshalled and serialized once, and its key for telling items apart.
 * Text, because a put waits for others (up to `SHARED_PROCESS_LINGER_MS` and a call): one string
 * outlives a young-generation collection for a fraction of what an attribute map's objects cost,
 * and the batch's body is then the items' texts joined.
 */
export interface MarshalledPut {
  readonly table: string;
  readonly key: string;
  /** The item in attribute-value form, as `storeJson` writes it. */
  readonly item: string;
}

/** The object form of serialized items, for a test's observer or the SDK's client. */
const itemOf = (json: string) => fromStoreJson(json) as Record<string, AttributeValue>;

/** The item a marshalled put holds, read back as plain values (as the document client reads items). */
export const itemOfPut = (put: MarshalledPut): Record<string, unknown> => unmarshall(itemOf(put.item));

/**
 * One BatchWriteItem of distinct items. What the store leaves unprocessed (it does so under throttling)
 * is sent again with the same full-jitter backoff as a throttled call; what is still left after the
 * attempts fails as throttled.
 */
const writeChunk = async (table: string, items: readonly string[]): Promise<void> => {
  let pending = items;
  for (let attempt = 1; ; attempt += 1) {
    const request = pending;
    const body = `{"RequestItems":{${JSON.stringify(table)}:[${request.map((item) => `{"PutRequest":{"Item":${item}}}`).join(',')}]}}`;
    const answer = await retryThrottled(() =>
      sendSerialized(
        'BatchWriteItem',
        body,
        () => ({ RequestItems: { [table]: request.map((item) => ({ PutRequest: { Item: itemOf(item) } })) } }),
        THROTTLING_RETRIED_HERE,
      ),
    );
    pending = (answer.UnprocessedItems?.[table] ?? []).map((unprocessed) => storeJson(unprocessed.PutRequest!.Item!));
    if (pending.length === 0) return;
    if (attempt >= BOOKKEEPING_RETRY.attempts) throw new UnprocessedError(`${pending.length} items left unprocessed`);
    await JITTERED_BACKOFF.pause(jitteredDelay(attempt, BOOKKEEPING_RETRY, JITTERED_BACKOFF.random));
  }
};

/**
 * Puts of one table: one PutItem when alone, else BatchWriteItem calls of up to 25 distinct items in
 * parallel. A put of an item already in the batch (a retried record: same item, same content) shares
 * that item's write. A BatchWriteItem succeeds or fails for each chunk as a whole here: a chunk that
 * fails fails every put in it, and none of another chunk.
 */
const sendPuts = async (puts: readonly MarshalledPut[]): Promise<readonly Settled<void>[]> => {
  const [first] = puts as [MarshalledPut, ...MarshalledPut[]];
  if (puts.length === 1) {
    await retryThrottled(() =>
      sendSerialized(
        'PutItem',
        `{"TableName":${JSON.stringify(first.table)},"Item":${first.item}}`,
        () => ({ TableName: first.table, Item: itemOf(first.item) }),
        THROTTLING_RETRIED_HERE,
      ),
    );
    return [{ ok: true, value: undefined }];
  }
  const byKey = new Map<string, string>();
  for (const put of puts) byKey.set(put.key, put.item);
  const keys = [...byKey.keys()];
  const chunks: string[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_LIMIT) chunks.push(keys.slice(start, start + BATCH_LIMIT));
  const outcomeByKey = new Map<string, Settled<void>>();
  await Promise.all(
    chunks.map(async (chunk) => {
      const outcome: Settled<void> = await writeChunk(
        first.table,
        chunk.map((key) => byKey.get(key)!),
      ).then(
        () => ({ ok: true, value: undefined }),
        (error: unknown) => ({ ok: false, error }),
      );
      for (const key of chunk) outcomeByKey.set(key, outcome);
    }),
  );
  return puts.map((put) => outcomeByKey.get(put.key)!);
};

/**
 * How long a put waits for others to share its call, where one process serves many invocations at
 * once. The puts are records no answer waits on: a few milliseconds later, a request's record goes
 * out with those of the requests that ended meanwhile, instead of costing a call (about 0.2 ms of CPU
 * in the SDK, and as much again in the store) of its own. On Lambda's default compute, where the
 * invocation is billed until its record is stored and no other request would join it, puts go out at
 * the end of their turn.
 */
export const SHARED_PROCESS_LINGER_MS = 20;

/** The linger of writes no answer waits on: `SHARED_PROCESS_LINGER_MS` where the process is shared, else none. */
export const lingerWhereShared = (): number => (servesConcurrentInvocations() ? SHARED_PROCESS_LINGER_MS : 0);

const gathered = turnBatch(sendPuts, {
  followInFlight: true,
  lingerMs: lingerWhereShared,
  fullAt: BATCH_LIMIT,
});

/**
 * A put as it is sent: its item marshalled and serialized, once, before it joins a batch, so that a
 * refused value (a NaN, say) fails this put alone. Throws for such a value.
 */
export const marshalledPut = (put: ItemPut): MarshalledPut => ({
  table: put.table,
  key: putKey(put.item, put.keyNames),
  item: storeJson(toAttributeMap(put.item)),
});

/** What tells a batch's puts apart: the item's key attributes, `keyNames` in order. */
export const putKey = (item: Readonly<Record<string, unknown>>, keyNames: readonly string[]): string =>
  JSON.stringify(keyNames.map((name) => item[name]));

/**
 * Puts a marshalled item, in one call with the other puts to its table asked for in this loop turn (or,
 * where the process serves many invocations, within `SHARED_PROCESS_LINGER_MS`).
 */
export const putMarshalled = (put: MarshalledPut): Promise<void> => gathered(put.table, put);

/** Puts an item (`marshalledPut`, then `putMarshalled`); a refused value is the promise's rejection. */
export const putInBatch = (put: ItemPut): Promise<void> => promiseOf(() => putMarshalled(marshalledPut(put)));

/**
 * Resolves once every put asked for so far has settled, whatever its outcome: at most
 * `SHARED_PROCESS_LINGER_MS` and a call later. A lingering batch is not sent from here: it would
 * then be sent in the caller's async context, which in the local runtime names the function the
 * caller serves, not the one that asked for the puts.
 */
export const putsSettled = (): Promise<void> => gathered.settled();
