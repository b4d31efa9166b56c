import { notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import { metricsSummary, totalsView, type MetricsTotals } from '../shared/observability/metrics-summary.js';

const groups = (name: 'model' | 'accountId', totals: ReadonlyMap<string, MetricsTotals>) =>
  [...totals.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([value, group]) => ({ [name]: value, ...totalsView(group) }));

/**
 * GET /admin/v1/metrics: what the gateway has served since it started, in total, per model and per
 * account (the numbers the CloudWatch dashboard graphs). Kept by the local runtime only: a deployed
 * function instance sees a fraction of the traffic, so there the answer points to the dashboard.
 */
export const summary = async () => {
  if (!metricsSummary.collecting) {
    throw notFound(
      'This gateway keeps no metrics summary: on AWS, read the CloudWatch dashboard model-gateway-<stack name>.',
      'metrics_not_collected',
    );
  }
  return json(200, {
    since: metricsSummary.since,
    total: totalsView(metricsSummary.total),
    byModel: groups('model', metricsSummary.byModel),
    byAccount: groups('accountId', metricsSummary.byAccount),
  });
};
