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

/** The counters of a failure: each is 1 on the request it names, and 0 on every other. */
export const errorCounters = ['clientErrors', 'throttled', 'serverErrors', 'upstreamErrors', 'clientAborts'] as const;

/**
 * The metrics a request line reports: every figure, and of the error counters only those that are 1.
 * A zero adds nothing to a sum (the only statistic the counters are read with), and every member costs
 * bytes on every line, which CloudWatch Logs bills per GB ingested: the counters and their directive
 * entries were a fifth of a successful request's line. A counter left out of a line is left out of
 * its directive too (EMF requires a named metric to be a member of the line), and a metric with no
 * data in an hour is not billed for that hour.
 */
export const reportedMetrics = (metrics: RequestMetrics): Partial<RequestMetrics> => {
  const reported: Partial<Record<keyof RequestMetrics, number>> = { requests: metrics.requests };
  for (const counter of errorCounters) if (metrics[counter] !== 0) reported[counter] = metrics[counter];
  reported.latencyMs = metrics.latencyMs;
  reported.firstByteMs = metrics.firstByteMs;
  reported.upstreamMs = metrics.upstreamMs;
  reported.overheadMs = metrics.overheadMs;
  reported.promptTokens = metrics.promptTokens;
  reported.completionTokens = metrics.completionTokens;
  reported.totalTokens = metrics.totalTokens;
  reported.cost = metrics.cost;
  return reported;
};
