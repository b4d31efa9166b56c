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

/**
 * Holds an invocation to its function's timeout, as Lambda does: an invocation still running then is
 * stopped as far as the client can tell (a response not yet begun is API Gateway's 502; one under way
 * is cut) and reported with Lambda's own log line. The handler is expected to have wrapped up before
 * (it reads `context.getRemainingTimeInMillis()`); this is what happens to one that did not. A
 * response already closed by then is left as it was.
 */
export const withinFunctionTimeout = (
  invocation: Promise<void>,
  timed: Invocation,
  exchange: Pick<OpenExchange, 'response'>,
): Promise<void> =>
  // Callbacks rather than a race with a timer's promise: this wraps every request the runtime serves.
  new Promise<void>((resolve, reject) => {
    let over = false;
    /** Settles with the invocation, once it is reported; a report that throws fails it instead. */
    const ended = (settle: () => void) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      try {
        lambdaRuntimeEvents.emit('invocation-end', { ...timed, timedOut: false });
      } catch (error) {
        reject(error);
        return;
      }
      settle();
    };
    const timer = setTimeout(() => {
      over = true;
      timedOut(invocation, timed, exchange);
      resolve();
    }, timed.timeoutSeconds * 1000);
    invocation.then(
      () => ended(resolve),
      (error: unknown) => ended(() => reject(error)),
    );
  });

/** What Lambda does to an invocation still running at its timeout. */
const timedOut = (invocation: Promise<void>, timed: Invocation, exchange: Pick<OpenExchange, 'response'>): void => {
  log.error(`Task timed out after ${timed.timeoutSeconds.toFixed(2)} seconds`, {
    functionName: timed.functionName,
    requestId: timed.requestId,
  });
  lambdaRuntimeEvents.emit('invocation-end', { ...timed, timedOut: true });
  // What the stopped function left running here no longer reaches the client, nor fails the server.
  invocation.catch(() => undefined);
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
