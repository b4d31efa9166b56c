import type { Admission } from '../accounting/admission.js';
import { usageCost } from '../accounting/pricing.js';
import { writeUsageRecord, type UsageStatus } from '../accounting/usage-records.js';
import { nothing, promiseOf } from '../promise-of.js';
import type { CatalogModel } from '../catalog/model-catalog.js';
import { toGatewayError } from '../http/error-response.js';
import { FunctionTimeoutError } from './function-deadline.js';
import type { GatewayRequest } from './gateway-handler.js';
import { ClientAbortedError, UpstreamError } from '../upstream/upstream-errors.js';
import { usableUsage, type TokenUsage } from '../accounting/token-usage.js';
import type { StreamOutcome } from '../streaming/sse-response.js';
import type { Channel, EndpointKind } from '../store/channels.js';

/**
 * Collects what one request did (which channel served it, after how many attempts, what it used)
 * and writes its usage record once, off the client's critical path.
 */
export interface RequestMeter {
  served(channel: Channel, attempts: number): void;
  /** Time spent waiting on an upstream (told by `withFailover`), kept apart from the gateway's own. */
  upstreamTime(milliseconds: number): void;
  usage(usage: TokenUsage): void;
  /** The request's admission: recording settles it (token windows, quota) and takes its cost. */
  admitted(admission: Admission): void;
  /** The usage reported so far, if any. */
  readonly reported: TokenUsage | undefined;
  /** Writes the record (at most once); the returned promise settles when it is stored. */
  record(status: UsageStatus, httpStatus: number, fallbackUsage?: TokenUsage): Promise<void>;
  /** Records a request that ended in an error: the client's leaving, an upstream's failure, or ours. */
  failed(error: unknown): Promise<void>;
  /**
   * The `onFinish` of a metered stream: records the request when the stream ends, however it ends,
   * with `estimate()` (what the client saw) when the upstream reported no usage. The function does not
   * return before the record is written, but the stream is never held for it.
   */
  recordWhenStreamEnds(estimate: () => TokenUsage): (outcome: StreamOutcome) => void;
}

type Mutable<Shape> = { -readonly [Member in keyof Shape]: Shape[Member] };

/** The record's status for a request that ended in `error`. */
export const usageStatusFor = (error: unknown): UsageStatus =>
  error instanceof ClientAbortedError
    ? 'client_aborted'
    : error instanceof FunctionTimeoutError
      ? 'timeout'
      : error instanceof UpstreamError
        ? 'upstream_error'
        : 'error';

const streamUsageStatus = (outcome: StreamOutcome): UsageStatus =>
  outcome.kind === 'completed'
    ? 'success'
    : outcome.kind === 'aborted'
      ? 'client_aborted'
      : outcome.error instanceof FunctionTimeoutError
        ? 'timeout'
        : 'upstream_error';

/**
 * Both settled; rejects with the first failure, as `Promise.all` would. Made out here: a callback
 * made inside the meter would keep the meter's scope, and with it the request, until the store answers.
 */
const settledTogether = (settlement: Promise<unknown> | undefined, record: Promise<void>): Promise<void> =>
  Promise.all([settlement, record]).then(nothing);

export const startMeter = (
  request: GatewayRequest<unknown>,
  model: CatalogModel,
  endpoint: EndpointKind,
  stream: boolean,
): RequestMeter => {
  let channelId: string | null = null;
  let attempts = 0;
  let written: Promise<void> | undefined;
  let admission: Admission | undefined;
  /**
   * Built at once, then stored: the stores' promise is returned, not awaited, so that what waits on
   * the store holds the record and the settlement alone, not the request (its event and body) that
   * the meter's closure reaches. A failure to build it is the promise's rejection, as an async
   * function's would be, without an async function's own promise waiting on the store's.
   */
  const storeRecord = (status: UsageStatus, httpStatus: number, fallbackUsage?: TokenUsage): Promise<void> =>
    promiseOf(() => buildAndStore(status, httpStatus, fallbackUsage));
  const buildAndStore = (status: UsageStatus, httpStatus: number, fallbackUsage?: TokenUsage): Promise<void> => {
    const usage = meter.reported ?? fallbackUsage;
    // Priced here too, so a record keeps its cost even when settling the admission fails.
    const cost = usageCost(model.pricing, usage ?? { promptTokens: 0, completionTokens: 0 });
    const trace = request.trace;
    if (stream) trace.responseEnded();
    trace.metered = {
      model: model.id,
      endpoint,
      stream,
      channelId,
      attempts,
      outcome: status,
      promptTokens: usage?.promptTokens ?? 0,
      completionTokens: usage?.completionTokens ?? 0,
      totalTokens: usage?.totalTokens ?? 0,
      cost,
    };
    const record = writeUsageRecord({
      requestId: request.requestId,
      time: new Date(request.startedAt).toISOString(),
      accountId: request.principal.accountId,
      keyId: request.principal.keyId,
      model: model.id,
      channelId,
      endpoint,
      stream,
      status,
      httpStatus,
      attempts,
      promptTokens: usage?.promptTokens ?? 0,
      completionTokens: usage?.completionTokens ?? 0,
      totalTokens: usage?.totalTokens ?? 0,
      cachedTokens: usage?.cachedTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
      reasoningTokens: usage?.reasoningTokens ?? 0,
      usageSource: usage?.source ?? 'none',
      cost,
      latencyMs: Date.now() - request.startedAt,
      overheadMs: trace.overheadMs,
    });
    // A plain key's admission has nothing to write: waiting on it too was a `Promise.all` more for
    // every invocation waiting on its record.
    return admission?.settlesCharges ? settledTogether(admission.settle(usage), record) : record;
  };
  // `reported` is a member kept up to date, not a getter: an object literal whose getter is a new
  // closure gets a hidden class of its own each time, which V8 keeps in the old generation with all
  // the getter reaches (this request) until a full collection.
  const meter: Mutable<RequestMeter> = {
    served(channel, count) {
      channelId = channel.id;
      attempts = count;
    },
    upstreamTime(milliseconds) {
      request.trace.upstreamTime(milliseconds);
    },
    usage(usage) {
      meter.reported = usableUsage(usage);
    },
    admitted(value) {
      admission = value;
    },
    reported: undefined,
    record(status, httpStatus, fallbackUsage) {
      written ??= storeRecord(status, httpStatus, fallbackUsage);
      return written;
    },
    failed(error) {
      return meter.record(usageStatusFor(error), toGatewayError(error).status);
    },
    recordWhenStreamEnds(estimate) {
      let settle: (outcome: StreamOutcome) => void = () => undefined;
      const ended = new Promise<StreamOutcome>((resolve) => {
        settle = resolve;
      });
      // The estimate only where it is needed: counting what the client was sent costs a scan of it all.
      request.defer(
        ended.then((outcome) => meter.record(streamUsageStatus(outcome), 200, meter.reported ? undefined : estimate())),
      );
      return settle;
    },
  };
  return meter;
};
