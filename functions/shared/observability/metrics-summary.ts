import type { RequestMetrics } from './request-metrics.js';

/** Sums and extremes of one group of requests, the same numbers the CloudWatch dashboard graphs. */
export interface MetricsTotals {
  requests: number;
  clientErrors: number;
  throttled: number;
  serverErrors: number;
  upstreamErrors: number;
  clientAborts: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
  /** Sums of times, for the averages the view shows. */
  latencyMs: number;
  firstByteMs: number;
  upstreamMs: number;
  overheadMs: number;
  maxLatencyMs: number;
  maxOverheadMs: number;
}

const emptyTotals = (): MetricsTotals => ({
  requests: 0,
  clientErrors: 0,
  throttled: 0,
  serverErrors: 0,
  upstreamErrors: 0,
  clientAborts: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cost: 0,
  latencyMs: 0,
  firstByteMs: 0,
  upstreamMs: 0,
  overheadMs: 0,
  maxLatencyMs: 0,
  maxOverheadMs: 0,
});

const add = (totals: MetricsTotals, metrics: RequestMetrics): void => {
  totals.requests += metrics.requests;
  totals.clientErrors += metrics.clientErrors;
  totals.throttled += metrics.throttled;
  totals.serverErrors += metrics.serverErrors;
  totals.upstreamErrors += metrics.upstreamErrors;
  totals.clientAborts += metrics.clientAborts;
  totals.promptTokens += metrics.promptTokens;
  totals.completionTokens += metrics.completionTokens;
  totals.totalTokens += metrics.totalTokens;
  totals.cost += metrics.cost;
  totals.latencyMs += metrics.latencyMs;
  totals.firstByteMs += metrics.firstByteMs;
  totals.upstreamMs += metrics.upstreamMs;
  totals.overheadMs += metrics.overheadMs;
  totals.maxLatencyMs = Math.max(totals.maxLatencyMs, metrics.latencyMs);
  totals.maxOverheadMs = Math.max(totals.maxOverheadMs, metrics.overheadMs);
};

/**
 * What this process has served since it started, in total, per model and per account. The local
 * runtime serves every function in one process, so there this is the whole gateway; on Lambda each
 * instance only sees its own requests, which is why deployed stages read CloudWatch instead.
 */
class MetricsSummary {
  since = new Date().toISOString();
  total = emptyTotals();
  byModel = new Map<string, MetricsTotals>();
  byAccount = new Map<string, MetricsTotals>();

  record(metrics: RequestMetrics, model: string | undefined, accountId: string | undefined): void {
    add(this.total, metrics);
    if (model !== undefined) add(this.group(this.byModel, model), metrics);
    if (accountId !== undefined) add(this.group(this.byAccount, accountId), metrics);
  }

  private group(groups: Map<string, MetricsTotals>, name: string): MetricsTotals {
    let totals = groups.get(name);
    if (!totals) {
      totals = emptyTotals();
      groups.set(name, totals);
    }
    return totals;
  }

  reset(): void {
    this.since = new Date().toISOString();
    this.total = emptyTotals();
    this.byModel.clear();
    this.byAccount.clear();
  }
}

export const metricsSummary = new MetricsSummary();

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** One group as the admin API shows it: counts, tokens, cost, and average and maximum times. */
export const totalsView = (totals: MetricsTotals) => {
  const average = (sum: number) => (totals.requests === 0 ? 0 : round(sum / totals.requests, 2));
  return {
    requests: totals.requests,
    errors: {
      client: totals.clientErrors,
      throttled: totals.throttled,
      server: totals.serverErrors,
      upstream: totals.upstreamErrors,
      clientAborted: totals.clientAborts,
    },
    promptTokens: totals.promptTokens,
    completionTokens: totals.completionTokens,
    totalTokens: totals.totalTokens,
    cost: round(totals.cost, 12),
    averageMs: {
      latency: average(totals.latencyMs),
      firstByte: average(totals.firstByteMs),
      upstream: average(totals.upstreamMs),
      overhead: average(totals.overheadMs),
    },
    maxMs: { latency: round(totals.maxLatencyMs, 2), overhead: round(totals.maxOverheadMs, 2) },
  };
};
