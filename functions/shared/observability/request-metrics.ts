import type { MeteredFacts } from './request-trace.js';

/**
 * The numbers one request contributes, named as they appear in its log line and as CloudWatch
 * metrics (embedded metric format reads a metric's value from the field of the same name). An error
 * counter is present only when it is 1: a zero adds nothing to a sum (the only statistic the counters
 * are read with), every member costs bytes on every line, which CloudWatch Logs bills per GB ingested
 * (the counters and their directive entries were a fifth of a successful request's line), and a metric
 * with no data in an hour is not billed for that hour. EMF requires every metric a directive names to
 * be a member of the line, so a counter absent here is absent from the directives too.
 */
export interface RequestMetrics {
  /** Always 1: summed, the request count. */
  readonly requests: number;
  /** 1 when the client got a 4xx other than 429 (its own mistake). */
  readonly clientErrors?: 1;
  /** 1 on a 429: a rate limit or the account's quota. */
  readonly throttled?: 1;
  /** 1 when the client got a 5xx. */
  readonly serverErrors?: 1;
  /** 1 when an upstream failed the request, before the head (502/503/504) or in the middle of a stream. */
  readonly upstreamErrors?: 1;
  /** 1 when the client went away before the answer ended. */
  readonly clientAborts?: 1;
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

/** The counters of a failure, each present (as 1) on the requests it names. */
export const errorCounters = ['clientErrors', 'throttled', 'serverErrors', 'upstreamErrors', 'clientAborts'] as const;

/** Classifies a finished request: a failed one has the error counters of its classes, a success none. */
export const requestMetrics = (
  status: number,
  times: RequestTimes,
  metered: MeteredFacts | undefined,
): RequestMetrics => {
  const metrics: { -readonly [Name in keyof RequestMetrics]: RequestMetrics[Name] } = {
    requests: 1,
    ...times,
    promptTokens: metered?.promptTokens ?? 0,
    completionTokens: metered?.completionTokens ?? 0,
    totalTokens: metered?.totalTokens ?? 0,
    cost: metered?.cost ?? 0,
  };
  if (status >= 400 && status < 500 && status !== 429) metrics.clientErrors = 1;
  if (status === 429) metrics.throttled = 1;
  if (status >= 500) metrics.serverErrors = 1;
  if (metered?.outcome === 'upstream_error' || isUpstreamStatus(status)) metrics.upstreamErrors = 1;
  if (metered?.outcome === 'client_aborted') metrics.clientAborts = 1;
  return metrics;
};
