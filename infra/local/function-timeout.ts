import { EventEmitter } from 'node:events';
import { log } from '../../functions/shared/log.js';
import { functionGroups, type FunctionGroup } from '../../functions/shared/routes.js';
import type { OpenExchange } from './open-exchange.js';

/** Timeouts (seconds) to use instead of the groups' own, e.g. a tiny one to test what happens at the limit. */
export type FunctionTimeouts = Partial<Record<FunctionGroup, number>>;

export const functionTimeoutSeconds = (group: FunctionGroup, overrides: FunctionTimeouts | undefined): number =>
  overrides?.[group] ?? functionGroups[group].timeoutSeconds;

export interface Invocation {
  readonly functionName: string;
  readonly requestId: string;
  readonly timeoutSeconds: number;
}

export interface InvocationEnd extends Invocation {
  /** Still running at its timeout: Lambda would have stopped it there, unfinished work and all. */
  readonly timedOut: boolean;
}

/**
 * How each invocation ended (`invocation-end`), for tests: work a handler finished before this event
 * is work Lambda would have let it finish.
 */
export const lambdaRuntimeEvents = new EventEmitter<{ 'invocation-end': [InvocationEnd] }>();

// API Gateway's answer when the function failed before answering (its timeout included).
const GATEWAY_FAILURE_BODY = JSON.stringify({ message: 'Internal server error' });

/** How an invocation held to its timeout ended: its failure, if it failed before the timeout. */
export type InvocationEnded = (failure: { readonly error: unknown } | undefined) => void;

/** An invocation under way, until it ends or its timeout stops it. */
class HeldInvocation {
  /** True once it has ended or been stopped: whichever comes second is ignored. */
  private over = false;
  readonly deadline: number;
  /** Where `Deadlines` keeps it. */
  slot = -1;

  constructor(
    readonly timed: Invocation,
    private readonly exchange: Pick<OpenExchange, 'response'>,
    private readonly ended: InvocationEnded,
  ) {
    this.deadline = performance.now() + timed.timeoutSeconds * 1000;
  }

  /** The invocation settled: reported, then told with its failure (or the report's, if reporting threw). */
  settle(failure: { readonly error: unknown } | undefined): void {
    if (this.over) return;
    this.over = true;
    deadlines.remove(this);
    try {
      reportEnd(this.timed, false);
    } catch (error) {
      failure = { error };
    }
    this.ended(failure);
  }

  /** Its deadline passed while it ran. */
  stop(): void {
    if (this.over) return;
    this.over = true;
    try {
      timedOut(this.timed, this.exchange);
    } finally {
      this.ended(undefined);
    }
  }
}

/** Tells the runtime's listeners (tests) how an invocation ended; an event object only when listened to. */
const reportEnd = (timed: Invocation, timedOut: boolean): void => {
  if (lambdaRuntimeEvents.listenerCount('invocation-end') > 0)
    lambdaRuntimeEvents.emit('invocation-end', { ...timed, timedOut });
};

/**
 * The deadlines of the invocations under way, with one timer for them all, set for the earliest.
 * Each invocation has a slot in one array, freed when it ends; when the timer fires, every
 * invocation past its deadline is stopped and the timer is set for the next. A timer of its own for
 * every invocation cost a timer, its callback and a promise's executor, and a set of them rehashed
 * as it grew and shrank under load: all of it kept past young collections by requests waiting on
 * their usage records. The array only grows to the most invocations ever under way at once.
 */
class Deadlines {
  /** The invocations under way, each in a slot of its own, reused once its invocation has ended. */
  private readonly slots: (HeldInvocation | undefined)[] = [];
  private readonly free: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  add(held: HeldInvocation): void {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = held;
    held.slot = slot;
    if (held.deadline < this.timerAt) this.arm(held.deadline);
  }

  remove(held: HeldInvocation): void {
    if (this.slots[held.slot] !== held) return;
    this.slots[held.slot] = undefined;
    this.free.push(held.slot);
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    // Unref'd: the server keeps the process up while it serves; a timer must not hold a stopped one.
    this.timer = setTimeout(this.sweep, Math.max(0, at - performance.now())).unref();
  }

  /** Stops every invocation past its deadline, then waits for the next deadline. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < this.slots.length; slot += 1) {
      const held = this.slots[slot];
      if (held === undefined) continue;
      if (held.deadline > now) {
        next = Math.min(next, held.deadline);
        continue;
      }
      this.remove(held);
      try {
        held.stop();
      } catch (error) {
        // One invocation's report failing must not leave the others past their deadlines running.
        log.error('local runtime failed to stop an invocation at its timeout', { error: String(error) });
      }
    }
    if (next < this.timerAt) this.arm(next);
  };
}

const deadlines = new Deadlines();

/**
 * Holds an invocation to its function's timeout, as Lambda does: an invocation still running then is
 * stopped as far as the client can tell (a response not yet begun is API Gateway's 502; one under way
 * is cut) and reported with Lambda's own log line. The handler is expected to have wrapped up before
 * (it reads `context.getRemainingTimeInMillis()`); this is what happens to one that did not. A
 * response already closed by then is left as it was. `ended` is told once: when the invocation
 * settles (with its failure, if any), or when its timeout stops it (the client has had its answer).
 */
export const holdToTimeout = (
  invocation: Promise<void>,
  timed: Invocation,
  exchange: Pick<OpenExchange, 'response'>,
  ended: InvocationEnded,
): void => {
  const held = new HeldInvocation(timed, exchange, ended);
  deadlines.add(held);
  invocation.then(
    () => held.settle(undefined),
    (error: unknown) => held.settle({ error }),
  );
};

/** What Lambda does to an invocation still running at its timeout. */
const timedOut = (timed: Invocation, exchange: Pick<OpenExchange, 'response'>): void => {
  log.error(`Task timed out after ${timed.timeoutSeconds.toFixed(2)} seconds`, {
    functionName: timed.functionName,
    requestId: timed.requestId,
  });
  reportEnd(timed, true);
  // What the stopped function left running no longer reaches the client: its end is ignored.
  const response = exchange.response;
  if (!response) return;
  response.on('error', () => undefined);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(502, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(GATEWAY_FAILURE_BODY)),
    'x-amzn-errortype': 'InternalServerErrorException',
  });
  response.end(GATEWAY_FAILURE_BODY);
};
