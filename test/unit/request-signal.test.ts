import { once } from 'node:events';
import { FunctionTimeoutError, watchDeadline } from '../../functions/shared/middleware/function-deadline.js';

/**
 * A request has one controller: its client's leaving aborts it (streaming functions) and so does its
 * function's deadline. Its signal carries the reason of whichever came first (the two are reported
 * differently: `client_aborted` against `timeout`).
 */
describe("a request's signal and its function's deadline", () => {
  /** A context whose deadline has come: the watch aborts on the next turn of the timers. */
  const dueNow = { getRemainingTimeInMillis: () => 0 };

  it('is aborted by the deadline with a FunctionTimeoutError', async () => {
    const request = new AbortController();
    watchDeadline(dueNow, request);
    expect(request.signal.aborted).toBe(false);
    await once(request.signal, 'abort');
    expect(request.signal.reason).toBeInstanceOf(FunctionTimeoutError);
  });

  it("keeps the client's reason when the client left before the deadline", async () => {
    const request = new AbortController();
    const clientLeft = new Error('client disconnected');
    let heard = 0;
    request.signal.addEventListener('abort', () => (heard += 1));
    watchDeadline(dueNow, request);
    request.abort(clientLeft);
    // Timers of one delay fire in the order they were set: this one's abort comes after the first's.
    const later = new AbortController();
    watchDeadline(dueNow, later);
    await once(later.signal, 'abort');
    expect(request.signal.reason).toBe(clientLeft);
    expect(heard).toBe(1);
  });

  it("keeps the deadline's reason when the client leaves after it", async () => {
    const request = new AbortController();
    watchDeadline(dueNow, request);
    await once(request.signal, 'abort');
    request.abort(new Error('client disconnected'));
    expect(request.signal.reason).toBeInstanceOf(FunctionTimeoutError);
  });

  it('is never aborted by a deadline once the watch is cleared, nor without a remaining time', async () => {
    const cleared = new AbortController();
    watchDeadline(dueNow, cleared).clear();
    const unknown = new AbortController();
    watchDeadline({ getRemainingTimeInMillis: () => Number.NaN }, unknown);
    const later = new AbortController();
    watchDeadline(dueNow, later);
    await once(later.signal, 'abort');
    expect(cleared.signal.aborted).toBe(false);
    expect(unknown.signal.aborted).toBe(false);
  });
});
