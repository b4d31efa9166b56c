import { metricNames } from './embedded-metrics.js';
import { finishedRequestObservers } from './request-log.js';
import type { RequestMetrics } from './request-metrics.js';

/** Sums of every request metric over one group of requests, plus the largest latency and overhead. */
export type MetricsTotals = Record<keyof RequestMetrics | 'maxLatencyMs' | 'maxOverheadMs', number>;

const emptyTotals = (): MetricsTotals =>
  Object.fromEntries([...metricNames, 'maxLatencyMs', 'maxOverheadMs'].map((name) => [name, 0])) as MetricsTotals;

const add = (totals: MetricsTotals, metrics: RequestMetrics): void => {
  // An error counter is absent where it is 0.
  for (const name of metricNames) totals[name] += metrics[name] ?? 0;
  totals.maxLatencyMs = Math.max(totals.maxLatencyMs, metrics.latencyMs);
  totals.maxOverheadMs = Math.max(totals.maxOverheadMs, metrics.overheadMs);
};

const groupIn = (groups: Map<string, MetricsTotals>, name: string): MetricsTotals => {
  let totals = groups.get(name);
  if (!totals) groups.set(name, (totals = emptyTotals()));
  return totals;
};

/**
 * What this process has served since it started, in total, per model and per account. Only the local
 * runtime collects it: it serves every function in one process, so there this is the whole gateway,
 * while a Lambda instance would only see its own requests (deployed stages read CloudWatch).
 */
export const metricsSummary = {
  collecting: false,
  since: new Date().toISOString(),
  total: emptyTotals(),
  byModel: new Map<string, MetricsTotals>(),
  byAccount: new Map<string, MetricsTotals>(),
  record(metrics: RequestMetrics, model: string | undefined, accountId: string | undefined): void {
    add(this.total, metrics);
    if (model !== undefined) add(groupIn(this.byModel, model), metrics);
    if (accountId !== undefined) add(groupIn(this.byAccount, accountId), metrics);
  },
};

/** Starts summing every finished request (the local runtime calls it once at start). */
export const collectMetricsSummary = (): void => {
  if (metricsSummary.collecting) return;
  metricsSummary.collecting = true;
  metricsSummary.since = new Date().toISOString();
  finishedRequestObservers.add((metrics, model, accountId) => metricsSummary.record(metrics, model, accountId));
};

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
