import type { MeteredFacts } from './request-trace.js';

/**
 * The numbers one request contributes, named as they appear in its log line and as CloudWatch
 * metrics (embedded metric format reads a metric's value from the field of the same name).
 */
export interface RequestMetrics {
  /** Always 1: summed, the request count. */
  readonly requests: number;
  /** 1 when the client got a 4xx other than 429 (its own mistake). */
  readonly clientErrors: number;
  /** 1 on a 429: a rate limit or the account's quota. */
  readonly throttled: number;
  /** 1 when the client got a 5xx. */
  readonly serverErrors: number;
  /** 1 when an upstream failed the request, before the head (502/503/504) or in the middle of a stream. */
  readonly upstreamErrors: number;
  /** 1 when the client went away before the answer ended. */
  readonly clientAborts: number;
  readonly latencyMs: number;
  readonly firstByteMs: number;
  readonly upstreamMs: number;
  readonly overheadMs: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

export interface RequestTimes {
  readonly latencyMs: number;
  readonly firstByteMs: number;
  readonly upstreamMs: number;
  readonly overheadMs: number;
}

const isUpstreamStatus = (status: number) => status === 502 || status === 503 || status === 504;

/** Classifies a finished request: exactly one of the error counters is 1 for a failed one. */
export const requestMetrics = (
  status: number,
  times: RequestTimes,
  metered: MeteredFacts | undefined,
): RequestMetrics => {
  const upstreamFailed = metered?.outcome === 'upstream_error' || isUpstreamStatus(status);
  return {
    requests: 1,
    clientErrors: status >= 400 && status < 500 && status !== 429 ? 1 : 0,
    throttled: status === 429 ? 1 : 0,
    serverErrors: status >= 500 ? 1 : 0,
    upstreamErrors: upstreamFailed ? 1 : 0,
    clientAborts: metered?.outcome === 'client_aborted' ? 1 : 0,
    ...times,
    promptTokens: metered?.promptTokens ?? 0,
    completionTokens: metered?.completionTokens ?? 0,
    totalTokens: metered?.totalTokens ?? 0,
    cost: metered?.cost ?? 0,
  };
};
