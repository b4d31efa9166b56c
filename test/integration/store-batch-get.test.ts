import { readShards } from '../../functions/shared/accounting/sliced-budget.js';
import { putItem } from '../../functions/shared/store/documents.js';
import { getAllByKeys } from '../../functions/shared/store/get-all-by-keys.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { BOOKKEEPING_RETRY, type Backoff } from '../../functions/shared/store/throttle-retry.js';
import { resetStore } from '../support/sdk-store.js';
import { useInMemoryStore } from '../support/in-memory-store.js';
import { onStoreRequests, type StoreInput } from '../support/store-wire.js';

/**
 * A BatchGetItem the store answers only in part (it leaves keys in `UnprocessedKeys` under
 * throttling) is asked again for what is left, after a jittered pause that grows, and gives up
 * after the bookkeeping attempts: the budgets' shards and an account's spend are read this way.
 * The pauses are the test's own, resolved at once and recorded.
 */

useInMemoryStore();
afterAll(() => resetStore());

const counters = () => physicalTableName('counters');

let unique = 0;
const freshId = (prefix: string) => `${prefix}-${Date.now()}-${(unique += 1)}`;

/** A backoff that records each pause and waits for none; its draw is `draw` (1: the full cap). */
const recordedBackoff = (draw = 1) => {
  const pauses: number[] = [];
  const backoff: Backoff = {
    pause: (milliseconds) => {
      pauses.push(milliseconds);
      return Promise.resolve();
    },
    random: () => draw,
  };
  return { pauses, backoff };
};

/** Answers BatchGetItem in the store's place with every key unprocessed, `times` times; counts the calls. */
const leaveUnprocessed = (times: number) => {
  const seen: StoreInput[] = [];
  const stop = onStoreRequests((command, input) => {
    if (command !== 'BatchGetItemCommand') return undefined;
    seen.push(input);
    if (seen.length > times) return undefined;
    return { status: 200, body: { Responses: {}, UnprocessedKeys: input.RequestItems } };
  });
  return { seen, stop };
};

const storedShards = async (id: string, counts: readonly number[]) => {
  for (const [index, count] of counts.entries()) {
    await putItem({ TableName: counters(), Item: { id: `${id}#${index}`, count } });
  }
  return counts.map((_, index) => ({ id: `${id}#${index}` }));
};

describe('a batch read the store answers only in part', () => {
  test('asks again for the keys left, after a jittered pause that doubles, and returns every item', async () => {
    const id = freshId('partial');
    const keys = await storedShards(id, [1, 2, 3, 4]);
    const { pauses, backoff } = recordedBackoff(0.5);
    const { seen, stop } = leaveUnprocessed(2);
    try {
      const items = await getAllByKeys(counters(), keys, backoff);
      expect(items.map((item) => item.count).sort()).toEqual([1, 2, 3, 4]);
    } finally {
      stop();
    }
    expect(seen).toHaveLength(3);
    expect(pauses).toEqual([0.5 * BOOKKEEPING_RETRY.baseDelayMs, BOOKKEEPING_RETRY.baseDelayMs]);
  });

  test('waits anywhere up to a cap that grows to the most, never past it', async () => {
    const keys = await storedShards(freshId('capped'), [5]);
    const { pauses, backoff } = recordedBackoff(1);
    const { stop } = leaveUnprocessed(BOOKKEEPING_RETRY.attempts - 1);
    try {
      await getAllByKeys(counters(), keys, backoff);
    } finally {
      stop();
    }
    expect(pauses).toHaveLength(BOOKKEEPING_RETRY.attempts - 1);
    for (const [index, pause] of pauses.entries()) {
      expect(pause).toBe(Math.min(BOOKKEEPING_RETRY.maxDelayMs, BOOKKEEPING_RETRY.baseDelayMs * 2 ** index));
    }
  });

  test('fails as throttled once the attempts are spent, not asking again forever', async () => {
    const keys = await storedShards(freshId('refused'), [6]);
    const { backoff } = recordedBackoff(0);
    const { seen, stop } = leaveUnprocessed(Number.POSITIVE_INFINITY);
    try {
      await expect(getAllByKeys(counters(), keys, backoff)).rejects.toMatchObject({
        name: 'ProvisionedThroughputExceededException',
      });
    } finally {
      stop();
    }
    expect(seen).toHaveLength(BOOKKEEPING_RETRY.attempts);
  });

  test('a budget whose shards stay unread is a 429 to the client, after a bounded number of calls', async () => {
    const id = freshId('budget');
    await storedShards(id, [1, 1, 1]);
    // Past twice the cap the store answers in full: a read without a cap would then succeed.
    const { seen, stop } = leaveUnprocessed(2 * BOOKKEEPING_RETRY.attempts);
    try {
      await expect(
        readShards({ table: counters(), key: (index) => ({ id: `${id}#${index}` }), shards: 3, attribute: 'count' }),
      ).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    } finally {
      stop();
    }
    expect(seen).toHaveLength(BOOKKEEPING_RETRY.attempts);
  });
});
