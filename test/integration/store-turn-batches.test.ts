import { jest } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { observeAwsCalls, type AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { roundUsd } from '../../functions/shared/accounting/pricing.js';
import { putInBatch, putsSettled, SHARED_PROCESS_LINGER_MS } from '../../functions/shared/store/batched-puts.js';
import { CONCURRENT_INVOCATIONS_VARIABLE } from '../../functions/shared/aws/concurrent-invocations.js';
import { resetStore, store } from '../support/sdk-store.js';
import { addToItem } from '../../functions/shared/store/item-additions.js';
import { resetStoreConnection } from '../../functions/shared/store/connection.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { useInMemoryStore } from '../support/in-memory-store.js';
import { onStoreRequests, type StoreInput } from '../support/store-wire.js';

/**
 * The store writes asked for in one loop turn go out together: summed additions to one item, and
 * puts of one table in BatchWriteItem calls. The item must end as the separate writes would leave
 * it, each caller must learn its own write's outcome, and the calls must be fewer.
 */

useInMemoryStore();

let calls: AwsCall[] = [];
beforeEach(() => {
  calls = [];
  observeAwsCalls((call) => calls.push(call));
});
afterEach(() => observeAwsCalls(undefined));
afterAll(() => resetStore());

const counters = () => physicalTableName('counters');
const spend = () => physicalTableName('spend');
const usage = () => physicalTableName('usage');

const read = async (table: string, key: Record<string, string>) =>
  (await store().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;

let unique = 0;
const freshId = (prefix: string) => `${prefix}-${Date.now()}-${(unique += 1)}`;

describe('additions to one item in one turn', () => {
  it('end where the separate additions would have left it, in one call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 40 }),
        async (deltas) => {
          const id = freshId('sum');
          calls = [];
          await Promise.all(
            deltas.map((delta) => addToItem({ table: counters(), key: { id }, add: { count: delta } })),
          );
          const sum = deltas.reduce((total, delta) => total + delta, 0);
          expect(Number((await read(counters(), { id }))?.count ?? 0)).toBe(sum);
          expect(calls.filter((call) => call.operation === 'UpdateItem').length).toBe(sum === 0 ? 0 : 1);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keep items, attributes and what is set only where absent apart', async () => {
    const [first, second] = [freshId('first'), freshId('second')];
    await addToItem({ table: counters(), key: { id: first }, add: { count: 1 }, setIfAbsent: { expiresAt: 100 } });
    calls = [];

    await Promise.all([
      addToItem({ table: counters(), key: { id: first }, add: { count: 2 }, setIfAbsent: { expiresAt: 999 } }),
      addToItem({ table: counters(), key: { id: second }, add: { count: 5 }, setIfAbsent: { expiresAt: 200 } }),
      addToItem({ table: spend(), key: { id: first }, add: { used: 0.1, committed: 0.2 }, round: roundUsd }),
      addToItem({ table: spend(), key: { id: first }, add: { used: 0.2, committed: -0.1 }, round: roundUsd }),
    ]);

    expect(await read(counters(), { id: first })).toEqual({ id: first, count: 3, expiresAt: 100 });
    expect(await read(counters(), { id: second })).toEqual({ id: second, count: 5, expiresAt: 200 });
    // Summed and rounded: 0.1 + 0.2 is 0.3 here, not 0.30000000000000004.
    expect(await read(spend(), { id: first })).toEqual({ id: first, used: 0.3, committed: 0.1 });
    expect(calls.filter((call) => call.operation === 'UpdateItem')).toHaveLength(3);
  });

  it('fail every caller of a write the store refuses', async () => {
    const outcomes = await Promise.allSettled(
      [1, 2].map(() => addToItem({ table: 'no-such-table', key: { id: 'x' }, add: { count: 1 } })),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});

const usageItem = (sk: string) => ({ partition: freshId('partition'), sk, note: 'x'.repeat(40) });

describe('puts of one table in one turn', () => {
  it('go out as one PutItem when alone', async () => {
    const item = usageItem('alone');
    await putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] });

    expect(calls.map((call) => call.operation)).toEqual(['PutItem']);
    expect(await read(usage(), { partition: item.partition, sk: 'alone' })).toEqual(item);
  });

  it('go out in BatchWriteItem calls of at most 25 items, every item stored', async () => {
    const items = Array.from({ length: 60 }, (_, index) => usageItem(`item-${index}`));

    await Promise.all(items.map((item) => putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] })));

    const batches = calls.filter((call) => call.operation === 'BatchWriteItem');
    expect(batches.map((call) => (call.input.RequestItems as Record<string, unknown[]>)[usage()]!.length)).toEqual([
      25, 25, 10,
    ]);
    for (const item of items) expect(await read(usage(), { partition: item.partition, sk: item.sk })).toEqual(item);
  });

  it('share one write for two puts of the same item', async () => {
    const item = usageItem('twice');
    const other = usageItem('other');

    await Promise.all(
      [item, item, other].map((put) => putInBatch({ table: usage(), item: put, keyNames: ['partition', 'sk'] })),
    );

    const [batch] = calls.filter((call) => call.operation === 'BatchWriteItem');
    expect((batch!.input.RequestItems as Record<string, unknown[]>)[usage()]).toHaveLength(2);
    expect(await read(usage(), { partition: item.partition, sk: 'twice' })).toEqual(item);
  });

  it('fail only the puts of a chunk the store refuses', async () => {
    const good = usageItem('good');
    const outcomes = await Promise.allSettled([
      putInBatch({ table: usage(), item: good, keyNames: ['partition', 'sk'] }),
      putInBatch({ table: 'no-such-table', item: usageItem('lost'), keyNames: ['partition', 'sk'] }),
      putInBatch({ table: 'no-such-table', item: usageItem('lost-too'), keyNames: ['partition', 'sk'] }),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(await read(usage(), { partition: good.partition, sk: 'good' })).toEqual(good);
  });

  it('send again what the store leaves unprocessed, binary values included, until it is stored', async () => {
    const items = [
      { ...usageItem('unprocessed-text'), note: '名 "quoted" \\ \n' },
      { ...usageItem('unprocessed-bytes'), blob: Buffer.from([0, 1, 254, 255]) },
    ];
    const sent: StoreInput[] = [];
    // The store takes none of the first call's items, as it may under throttling.
    const stopAnswering = onStoreRequests((command, input) => {
      if (command !== 'BatchWriteItemCommand') return undefined;
      sent.push(input);
      const requests = (input.RequestItems as Record<string, unknown[]>)[usage()]!;
      return sent.length === 1 ? { status: 200, body: { UnprocessedItems: { [usage()]: requests } } } : undefined;
    });
    try {
      await Promise.all(items.map((item) => putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] })));
    } finally {
      stopAnswering();
    }

    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    for (const item of items) expect(await read(usage(), { partition: item.partition, sk: item.sk })).toEqual(item);
  });

  it('fail alone when their item cannot be stored, leaving the rest of the batch', async () => {
    const good = usageItem('beside-nan');
    const outcomes = await Promise.allSettled([
      putInBatch({ table: usage(), item: good, keyNames: ['partition', 'sk'] }),
      putInBatch({ table: usage(), item: { ...usageItem('nan'), cost: Number.NaN }, keyNames: ['partition', 'sk'] }),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
    expect(await read(usage(), { partition: good.partition, sk: good.sk })).toEqual(good);
  });
});

describe('puts asked for while a batch of their table is in flight', () => {
  it('wait for it and go out together, however many turns asked for them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 2, maxLength: 6 }), async (turns) => {
        calls = [];
        // The first call is held on its way to the store until every later put has been asked for.
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let reachedGate!: () => void;
        const held = new Promise<void>((resolve) => (reachedGate = resolve));
        let seen = 0;
        const stopHolding = onStoreRequests(async () => {
          seen += 1;
          if (seen === 1) {
            reachedGate();
            await gate;
          }
        });
        try {
          const first = usageItem('first');
          const writes = [putInBatch({ table: usage(), item: first, keyNames: ['partition', 'sk'] })];
          await held;
          const later = [];
          for (const [turn, size] of turns.entries()) {
            for (let index = 0; index < size; index += 1) {
              const item = usageItem(`later-${turn}-${index}`);
              later.push(item);
              writes.push(putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] }));
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
          expect(calls).toHaveLength(1);
          release();
          await Promise.all(writes);

          // The first alone, then everything that waited, together: BatchWriteItems of up to 25 items.
          expect(calls[0]!.operation).toBe('PutItem');
          const batches = calls
            .slice(1)
            .map((call) => (call.input.RequestItems as Record<string, unknown[]>)[usage()]!.length);
          expect(batches).toEqual(
            Array.from({ length: Math.ceil(later.length / 25) }, (_, index) => Math.min(25, later.length - index * 25)),
          );
          for (const item of [first, ...later])
            expect(await read(usage(), { partition: item.partition, sk: item.sk })).toEqual(item);
        } finally {
          release();
          stopHolding();
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('where one process serves many invocations', () => {
  beforeEach(() => {
    process.env[CONCURRENT_INVOCATIONS_VARIABLE] = 'true';
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'Date', 'performance'] });
  });
  afterEach(() => {
    jest.useRealTimers();
    delete process.env[CONCURRENT_INVOCATIONS_VARIABLE];
  });
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  describe('puts', () => {
    it('wait for the puts of later turns within the linger, and go out with them in one call', async () => {
      const [first, second] = [usageItem('first-of-two'), usageItem('second-of-two')];
      const puts = [putInBatch({ table: usage(), item: first, keyNames: ['partition', 'sk'] })];
      await nextTurn();
      puts.push(putInBatch({ table: usage(), item: second, keyNames: ['partition', 'sk'] }));
      await nextTurn();
      expect(calls).toHaveLength(0);

      jest.advanceTimersByTime(SHARED_PROCESS_LINGER_MS);
      await Promise.all(puts);

      expect(calls.map((call) => call.operation)).toEqual(['BatchWriteItem']);
      for (const item of [first, second])
        expect(await read(usage(), { partition: item.partition, sk: item.sk })).toEqual(item);
    });

    it('are all settled, stored or refused, when putsSettled resolves', async () => {
      const good = usageItem('settled-good');
      const outcomes = Promise.allSettled([
        putInBatch({ table: usage(), item: good, keyNames: ['partition', 'sk'] }),
        putInBatch({ table: 'no-such-table', item: usageItem('settled-lost'), keyNames: ['partition', 'sk'] }),
      ]);
      let settled = false;
      const allSettled = putsSettled().then(() => (settled = true));
      await nextTurn();
      expect(settled).toBe(false);

      jest.advanceTimersByTime(SHARED_PROCESS_LINGER_MS);
      await allSettled;

      expect((await outcomes).map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
      expect(await read(usage(), { partition: good.partition, sk: good.sk })).toEqual(good);
    });

    it('go out at the end of their turn where the process serves one invocation at a time', async () => {
      delete process.env[CONCURRENT_INVOCATIONS_VARIABLE];
      const item = usageItem('one-at-a-time');

      await putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] });

      expect(calls.map((call) => call.operation)).toEqual(['PutItem']);
    });
  });

  describe('additions', () => {
    it('wait for the additions of later turns within the linger, and go out with them as one sum', async () => {
      const id = freshId('lingered');
      const additions = [addToItem({ table: counters(), key: { id }, add: { count: 3 } })];
      await nextTurn();
      additions.push(addToItem({ table: counters(), key: { id }, add: { count: -1 } }));
      await nextTurn();
      expect(calls).toHaveLength(0);

      jest.advanceTimersByTime(SHARED_PROCESS_LINGER_MS);
      await Promise.all(additions);

      expect(calls.map((call) => call.operation)).toEqual(['UpdateItem']);
      expect(Number((await read(counters(), { id }))?.count)).toBe(2);
    });

    it('go out at the end of their turn where the process serves one invocation at a time', async () => {
      delete process.env[CONCURRENT_INVOCATIONS_VARIABLE];
      const id = freshId('unlingered');

      await addToItem({ table: counters(), key: { id }, add: { count: 1 } });

      expect(calls.map((call) => call.operation)).toEqual(['UpdateItem']);
    });
  });
});

describe('puts where the SDK resolves the store', () => {
  let restoreAwsEnvironment: () => void = () => undefined;
  let endpoint: string | undefined;

  beforeAll(() => {
    // The reference client keeps the direct endpoint; the gateway's connection goes through the SDK.
    store();
    endpoint = process.env.DYNAMODB_ENDPOINT;
    restoreAwsEnvironment = setFakeAwsCredentials('AKIDSDKSTORE');
    delete process.env.DYNAMODB_ENDPOINT;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    resetStoreConnection();
  });

  afterAll(() => {
    delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.DYNAMODB_ENDPOINT = endpoint;
    restoreAwsEnvironment();
    resetStoreConnection();
  });

  it('store a put alone and a batch, binary values included, as the SDK sends them', async () => {
    const alone = { ...usageItem('sdk-alone'), blob: Buffer.from([7, 8, 9]) };
    await putInBatch({ table: usage(), item: alone, keyNames: ['partition', 'sk'] });
    const together = [usageItem('sdk-1'), { ...usageItem('sdk-2'), blob: Buffer.from([0, 255]) }];
    await Promise.all(together.map((item) => putInBatch({ table: usage(), item, keyNames: ['partition', 'sk'] })));

    expect(calls.map((call) => call.operation)).toEqual(['PutItem', 'BatchWriteItem']);
    for (const item of [alone, ...together])
      expect(await read(usage(), { partition: item.partition, sk: item.sk })).toEqual(item);
  });
});
