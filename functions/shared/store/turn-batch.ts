import { nothing } from '../promise-of.js';

/**
 * Store writes asked for in one turn of the event loop, gathered and sent together at its end. A
 * process that serves many requests at once (the local runtime, multi-concurrency Lambda) pays the
 * SDK's CPU per call, not per item, so a burst of requests that write to the same items, or each put
 * a record, costs one call instead of one per request. A lone request (one invocation per Lambda
 * environment) makes a batch of one: the same call it would have made alone, one loop turn later.
 *
 * Every caller still awaits its own entry's outcome, so an invocation never ends, and is never frozen,
 * before what it wrote is stored. The turn also lets the I/O already waiting (other requests' bytes,
 * upstream answers) run before the SDK's work for writes that no client is waiting on.
 */

interface Pending<Entry, Outcome> {
  readonly entry: Entry;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: unknown) => void;
}

/** The outcome of each entry of a batch, in the entries' order; a rejected promise fails them all. */
export type BatchSender<Entry, Outcome> = (entries: readonly Entry[]) => Promise<readonly Settled<Outcome>[]>;

export type Settled<Outcome> =
  { readonly ok: true; readonly value: Outcome } | { readonly ok: false; readonly error: unknown };

export interface TurnBatchOptions {
  /**
   * While a group's batch is in flight, its next entries wait for it to settle and then go out
   * together (group commit), instead of in a batch per loop turn. For writes no answer waits on
   * (records, settlements): under load one call carries what many turns asked for, and a lone
   * request, which finds nothing in flight, is sent at the end of its turn as before. A batch that
   * has not settled after `STALLED_AFTER_MS` is no longer waited for.
   */
  readonly followInFlight?: boolean;
  /**
   * How long a group's batch waits, from its first entry, for more entries to join it; read when the
   * wait starts, 0 (or absent) for the end of the turn. Only for writes whose callers can wait: where
   * one process serves many invocations at once, a request's record can share a call with the records
   * of requests that end a few milliseconds later, instead of costing a call of its own.
   */
  readonly lingerMs?: () => number;
  /** A group holding this many entries goes out at the end of the turn, whatever `lingerMs` says. */
  readonly fullAt?: number;
}

/** Past this, a batch in flight is taken as stalled and its group's next batch goes out anyway. */
export const STALLED_AFTER_MS = 1000;

/**
 * Gathers entries under a group key until the loop's check phase (or, with `followInFlight`, until
 * the group's batch in flight settles; with `lingerMs`, until it has passed), then sends each group
 * with `send`. Entries under different keys never share a batch.
 */
export const turnBatch = <Entry, Outcome>(send: BatchSender<Entry, Outcome>, options: TurnBatchOptions = {}) => {
  let groups = new Map<string, Pending<Entry, Outcome>[]>();
  /** The batches sent and not yet settled. A batch is its entries' array, from gathering to settling. */
  const sending = new Set<readonly Pending<Entry, Outcome>[]>();
  /** What waits for a batch to settle (`settled`), made only when asked for. */
  const settlements = new WeakMap<
    readonly Pending<Entry, Outcome>[],
    { promise: Promise<void>; resolve: () => void }
  >();
  const settlementOf = (batch: readonly Pending<Entry, Outcome>[]): Promise<void> => {
    let settlement = settlements.get(batch);
    if (!settlement) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((resolved) => (resolve = resolved));
      settlements.set(batch, (settlement = { promise, resolve }));
    }
    return settlement.promise;
  };
  /** The batch in flight per group key: a stalled one that settles late must not release its successor. */
  const inFlight = new Map<string, object>();
  /** A flush at the end of this turn is due; else `lingering` is the timer of a later one, if any. */
  let flushThisTurn = false;
  let lingering: NodeJS.Timeout | undefined;

  const schedule = (now: boolean) => {
    if (flushThisTurn) return;
    if (!now) {
      // Already lingering: the group waits for that timer, and the linger is not read again.
      if (lingering) return;
      const linger = options.lingerMs?.() ?? 0;
      if (linger > 0) {
        // Not unref'd: the entries' callers are waiting, and the process must not end before it fires.
        lingering = setTimeout(flush, linger);
        return;
      }
    }
    clearTimeout(lingering);
    lingering = undefined;
    flushThisTurn = true;
    setImmediate(flush);
  };

  const sendGroup = async (groupKey: string, pending: readonly Pending<Entry, Outcome>[]) => {
    const batch = {};
    let stalled: NodeJS.Timeout | undefined;
    const release = () => {
      clearTimeout(stalled);
      if (inFlight.get(groupKey) !== batch) return;
      inFlight.delete(groupKey);
      // What waited for this batch has waited long enough.
      if (groups.has(groupKey)) schedule(true);
    };
    if (options.followInFlight) {
      inFlight.set(groupKey, batch);
      stalled = setTimeout(release, STALLED_AFTER_MS).unref();
    }
    sending.add(pending);
    try {
      const outcomes = await send(pending.map((item) => item.entry));
      pending.forEach((item, index) => {
        const outcome = outcomes[index];
        if (outcome?.ok) item.resolve(outcome.value);
        else item.reject(outcome ? outcome.error : new Error('the batch gave no outcome for an entry'));
      });
    } catch (error) {
      for (const item of pending) item.reject(error);
    } finally {
      release();
      sending.delete(pending);
      settlements.get(pending)?.resolve();
    }
  };

  function flush() {
    const ready = groups;
    groups = new Map();
    flushThisTurn = false;
    clearTimeout(lingering);
    lingering = undefined;
    for (const [groupKey, pending] of ready) {
      if (inFlight.has(groupKey)) groups.set(groupKey, pending);
      else void sendGroup(groupKey, pending);
    }
  }

  const add = (groupKey: string, entry: Entry): Promise<Outcome> =>
    new Promise<Outcome>((resolve, reject) => {
      let group = groups.get(groupKey);
      if (group) group.push({ entry, resolve, reject });
      else groups.set(groupKey, (group = [{ entry, resolve, reject }]));
      if (!inFlight.has(groupKey)) schedule(options.fullAt !== undefined && group.length >= options.fullAt);
    });

  /**
   * Resolves once every entry added so far has settled, whatever its outcome: the batches they are
   * gathering in, or were sent in. Followed per batch, not per entry: a set holding every entry's
   * promise, and a callback on each, were kept past young collections with the entries under load.
   */
  const settled = (): Promise<void> => {
    const batches = [...groups.values(), ...sending];
    return batches.length === 0 ? Promise.resolve() : Promise.all(batches.map(settlementOf)).then(nothing);
  };

  return Object.assign(add, { settled });
};
