import { json } from '../shared/http/response.js';
import { metricsSummary, totalsView, type MetricsTotals } from '../shared/observability/metrics-summary.js';

const groups = (name: 'model' | 'accountId', totals: ReadonlyMap<string, MetricsTotals>) =>
  [...totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([value, group]) => ({ [name]: value, ...totalsView(group) }));

/**
 * GET /admin/v1/metrics: what the process answering has served since it started, in total, per model
 * and per account (the numbers the CloudWatch dashboard graphs). Locally that is the whole gateway;
 * on AWS one function instance, so `scope` says so and the dashboard is the place to look.
 */
export const summary = async () =>
  json(200, {
    since: metricsSummary.since,
    scope: process.env.AWS_LAMBDA_FUNCTION_NAME ? 'instance' : 'gateway',
    total: totalsView(metricsSummary.total),
    byModel: groups('model', metricsSummary.byModel),
    byAccount: groups('accountId', metricsSummary.byAccount),
  });
