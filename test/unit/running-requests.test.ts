import { jest } from '@jest/globals';
import { RunningRequests } from '../../infra/local/running-requests.js';

/** Whether `promise` has settled by the time the microtasks queued so far have run. */
const settledNow = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await Promise.resolve();
  await Promise.resolve();
  return settled;
};

describe('the requests the local runtime waits for when it stops', () => {
  test('with none running, the wait is over at once', async () => {
    await expect(settledNow(new RunningRequests().settledWithin(60_000))).resolves.toBe(true);
  });

  test('every waiter is released when the last running request ends, not before', async () => {
    const running = new RunningRequests();
    running.started();
    running.started();
    const first = running.settledWithin(60_000);
    const second = running.settledWithin(60_000);
    running.ended();
    await expect(settledNow(first)).resolves.toBe(false);
    running.ended();
    await expect(settledNow(first)).resolves.toBe(true);
    await expect(settledNow(second)).resolves.toBe(true);
  });

  test('a request that never ends holds the wait only until its time is up', async () => {
    jest.useFakeTimers();
    try {
      const running = new RunningRequests();
      running.started();
      const waited = running.settledWithin(300);
      await expect(settledNow(waited)).resolves.toBe(false);
      jest.advanceTimersByTime(300);
      await expect(settledNow(waited)).resolves.toBe(true);
      // Released by its time, a waiter is not woken again when the request ends.
      running.ended();
      running.started();
      const next = running.settledWithin(300);
      await expect(settledNow(next)).resolves.toBe(false);
      running.ended();
      await expect(settledNow(next)).resolves.toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
