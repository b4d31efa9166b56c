/**
 * Where a request's usage record goes.
 * - `store`: the function puts it in the usage table before it returns (the local runtime, and a stack
 *   deployed with `-c usageDelivery=store`).
 * - `log`: the function writes it as one log line, and the stack's usage writer (functions/usage-writer),
 *   subscribed to the function's log group, puts the lines of many requests in batches. An invocation
 *   then spends no store call on it: about 0.8 ms of CPU and 4 ms of billed time each (docs/cost.md).
 */
export type UsageDelivery = 'store' | 'log';

/** The environment variable that selects the delivery; anything but `log` is `store`. */
export const USAGE_DELIVERY_VARIABLE = 'GATEWAY_USAGE_DELIVERY';

/** What a usage record's log line says in its `event` member, and the subscription's filter on it. */
export const USAGE_RECORD_EVENT = 'usage_record';
export const USAGE_LINE_FILTER_PATTERN = `{ $.event = "${USAGE_RECORD_EVENT}" }`;

let delivery: UsageDelivery | undefined;

/** The delivery of this process: read once, as a function's environment is fixed at its start. */
export const usageDelivery = (): UsageDelivery =>
  (delivery ??= process.env[USAGE_DELIVERY_VARIABLE] === 'log' ? 'log' : 'store');
