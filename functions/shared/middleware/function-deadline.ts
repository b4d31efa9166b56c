import type { Context } from 'aws-lambda';
import { GatewayError } from '../errors.js';

/**
 * Lambda stops a function at its timeout, mid-stream or not: whatever it had not sent or stored is
 * lost, the client sees a cut connection and no usage record is written. So each invocation ends its
 * own work a little before that: the upstream call is closed, a stream gets its error event, and the
 * usage record is written while there is still time.
 */

/** Time kept back at most for the error event and the usage record (a store write or two). */
export const DEADLINE_RESERVE_MS = 1500;
/** With a short timeout, a quarter of it is kept back instead. */
const RESERVE_SHARE = 0.25;

/** The invocation ran out of time: the function's timeout, not the upstream's, was reached. */
export class FunctionTimeoutError extends GatewayError {
  constructor() {
    super('The gateway ran out of time for this request before the answer was complete.', {
      status: 504,
      type: 'server_error',
      code: 'function_timeout',
      expose: true,
    });
    this.name = 'FunctionTimeoutError';
  }
}

export interface FunctionDeadline {
  /** Stops watching (the invocation has ended). */
  clear(): void;
}

const never: FunctionDeadline = { clear: () => undefined };

/**
 * Watches the invocation's remaining time (`context.getRemainingTimeInMillis`, as Lambda gives it):
 * when the invocation must wrap up, `request` is aborted with a FunctionTimeoutError as its reason,
 * unless something aborted it first.
 */
export const watchDeadline = (
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  request: AbortController,
): FunctionDeadline => {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined || !Number.isFinite(remaining)) return never;
  const reserve = Math.min(DEADLINE_RESERVE_MS, remaining * RESERVE_SHARE);
  const timer = setTimeout(() => request.abort(new FunctionTimeoutError()), Math.max(0, remaining - reserve));
  // An idle process may freeze or exit: the timer alone must never keep it alive.
  timer.unref();
  return { clear: () => clearTimeout(timer) };
};
