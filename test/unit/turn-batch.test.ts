import { jest } from '@jest/globals';
import fc from 'fast-check';
import { STALLED_AFTER_MS, turnBatch, type Settled } from '../../functions/shared/store/turn-batch.js';

/**
 * Group commit: with `followInFlight`, what is asked for while a group's batch is in flight waits for
 * that batch and goes out with everything else that waited, in one batch; a lone entry goes at the end
 * of its turn. The sender here is a function the test settles by hand, so each step is an event.
 */

interface HeldBatch {
  readonly entries: readonly number[];
  settle(): void;
  fail(error: Error): void;
}

const heldSender = () => {
  const batches: HeldBatch[] = [];
  const sent: { notify?: () => void } = {};
  const send = (entries: readonly number[]) =>
    new Promise<readonly Settled<number>[]>((resolve, reject) => {
      batches.push({
        entries,
        settle: () => resolve(entries.map((value) => ({ ok: true, value: value * 10 }))),
        fail: reject,
      });
      sent.notify?.();
    });
  /** Resolves once `count` batches have been sent in all. */
  const batchesSent = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (batches.length >= count) resolve();
      };
      sent.notify = check;
      check();
    });
  return { batches, send, batchesSent };
};

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a turn batch that follows the batch in flight', () => {
  it('sends a lone entry at the end of its turn', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { followInFlight: true });
    const outcome = add('group', 1);
    await batchesSent(1);
    expect(batches.map((batch) => batch.entries)).toEqual([[1]]);
    batches[0]!.settle();
    await expect(outcome).resolves.toBe(10);
  });

  it('holds what later turns ask for until the batch in flight settles, then sends it as one batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 8 }), async (turns) => {
        const { batches, send, batchesSent } = heldSender();
        const add = turnBatch(send, { followInFlight: true });
        const first = add('group', 0);
        await batchesSent(1);
        // Entries asked for over several turns while the first batch is in flight.
        const waiting: Promise<number>[] = [];
        let value = 1;
        for (const size of turns) {
          for (let index = 0; index < size; index += 1) waiting.push(add('group', (value += 1)));
          await nextTurn();
        }
        expect(batches).toHaveLength(1);
        batches[0]!.settle();
        await expect(first).resolves.toBe(0);
        await batchesSent(2);
        const expected = Array.from({ length: waiting.length }, (_, index) => index + 2);
        expect(batches[1]!.entries).toEqual(expected);
        batches[1]!.settle();
        await expect(Promise.all(waiting)).resolves.toEqual(expected.map((entry) => entry * 10));
        expect(batches).toHaveLength(2);
      }),
      { numRuns: 30 },
    );
  });

  it('fails only the batch whose call failed, and then sends what waited behind it', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { followInFlight: true });
    const first = add('group', 1);
    await batchesSent(1);
    const waiting = add('group', 2);
    await nextTurn();
    batches[0]!.fail(new Error('store down'));
    await expect(first).rejects.toThrow('store down');
    await batchesSent(2);
    expect(batches[1]!.entries).toEqual([2]);
    batches[1]!.settle();
    await expect(waiting).resolves.toBe(20);
  });

  it('keeps groups apart: one group in flight does not hold another', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { followInFlight: true });
    void add('first', 1);
    await batchesSent(1);
    const other = add('second', 2);
    await batchesSent(2);
    expect(batches.map((batch) => batch.entries)).toEqual([[1], [2]]);
    batches[1]!.settle();
    await expect(other).resolves.toBe(20);
  });

  it('stops waiting for a batch that has not settled after STALLED_AFTER_MS, and a late settle frees nothing twice', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { batches, send, batchesSent } = heldSender();
      const add = turnBatch(send, { followInFlight: true });
      void add('group', 1);
      await batchesSent(1);
      const second = add('group', 2);
      await nextTurn();
      expect(batches).toHaveLength(1);
      jest.advanceTimersByTime(STALLED_AFTER_MS);
      await batchesSent(2);
      expect(batches[1]!.entries).toEqual([2]);
      // The stalled batch settles late: the second is still the one in flight.
      batches[0]!.settle();
      await nextTurn();
      const third = add('group', 3);
      await nextTurn();
      expect(batches).toHaveLength(2);
      batches[1]!.settle();
      await expect(second).resolves.toBe(20);
      await batchesSent(3);
      expect(batches[2]!.entries).toEqual([3]);
      batches[2]!.settle();
      await expect(third).resolves.toBe(30);
    } finally {
      jest.useRealTimers();
    }
  });

  it('without the option, sends each turn its own batch even while one is in flight', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send);
    void add('group', 1);
    await batchesSent(1);
    void add('group', 2);
    await batchesSent(2);
    expect(batches.map((batch) => batch.entries)).toEqual([[1], [2]]);
  });
});

describe('a turn batch that lingers', () => {
  const LINGER_MS = 20;
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('gathers what many turns ask for until the linger from the first entry has passed, then sends one batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }), async (turns) => {
        const { batches, send, batchesSent } = heldSender();
        const add = turnBatch(send, { followInFlight: true, lingerMs: () => LINGER_MS, fullAt: 25 });
        const outcomes: Promise<number>[] = [];
        let next = 0;
        for (const size of turns) {
          for (let index = 0; index < size; index += 1) outcomes.push(add('group', (next += 1)));
          await nextTurn();
          jest.advanceTimersByTime(1);
        }
        expect(batches).toHaveLength(0);
        jest.advanceTimersByTime(LINGER_MS);
        await batchesSent(1);
        expect(batches.map((batch) => batch.entries)).toEqual([Array.from({ length: next }, (_, index) => index + 1)]);
        batches[0]!.settle();
        await expect(Promise.all(outcomes)).resolves.toEqual(batches[0]!.entries.map((value) => value * 10));
      }),
      { numRuns: 20 },
    );
  });

  it('sends a group that holds fullAt entries at the end of its turn, without waiting', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { lingerMs: () => LINGER_MS, fullAt: 3 });
    void add('group', 1);
    await nextTurn();
    void add('group', 2);
    void add('group', 3);
    await batchesSent(1);
    expect(batches.map((batch) => batch.entries)).toEqual([[1, 2, 3]]);
  });

  it('sends what waited for the batch in flight as soon as it settles, without lingering again', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { followInFlight: true, lingerMs: () => LINGER_MS });
    void add('group', 1);
    jest.advanceTimersByTime(LINGER_MS);
    await batchesSent(1);
    const waiting = [add('group', 2), add('group', 3)];
    jest.advanceTimersByTime(LINGER_MS);
    await nextTurn();
    expect(batches).toHaveLength(1);
    batches[0]!.settle();
    await batchesSent(2);
    expect(batches[1]!.entries).toEqual([2, 3]);
    batches[1]!.settle();
    await expect(Promise.all(waiting)).resolves.toEqual([20, 30]);
  });

  it('sends at the end of the turn when the linger reads 0, as a process serving one invocation does', async () => {
    let linger = LINGER_MS;
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { lingerMs: () => linger });
    linger = 0;
    void add('group', 1);
    await batchesSent(1);
    expect(batches.map((batch) => batch.entries)).toEqual([[1]]);
  });
});

describe('settled', () => {
  /** Whether a promise has settled by the end of the current turn. */
  const settledYet = async (promise: Promise<unknown>): Promise<boolean> => {
    let done = false;
    void promise.then(() => (done = true));
    await nextTurn();
    return done;
  };

  it('resolves at once when nothing was added', async () => {
    const { send } = heldSender();
    await expect(settledYet(turnBatch(send).settled())).resolves.toBe(true);
  });

  it('waits for the batch in flight and for the entries gathering behind it, failed or stored', async () => {
    const { batches, send, batchesSent } = heldSender();
    const add = turnBatch(send, { followInFlight: true });
    const first = add('group', 1);
    await batchesSent(1);
    // Gathering while the first batch is in flight; another group's entry goes on its own.
    const second = add('group', 2);
    const other = add('other', 3).catch((error: Error) => error.message);
    await batchesSent(2);
    const all = add.settled();

    batches[0]!.settle();
    await batchesSent(3);
    expect(batches.map((batch) => batch.entries)).toEqual([[1], [3], [2]]);
    expect(await settledYet(all)).toBe(false);
    batches[1]!.fail(new Error('refused'));
    expect(await settledYet(all)).toBe(false);
    batches[2]!.settle();

    await expect(all).resolves.toBeUndefined();
    await expect(first).resolves.toBe(10);
    await expect(second).resolves.toBe(20);
    await expect(other).resolves.toBe('refused');
  });
});
