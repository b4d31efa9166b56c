import { DEFAULT_METRICS_NAMESPACE, METRICS_NAMESPACE_VARIABLE } from '../metrics-namespace.js';
import { errorCounters, type RequestMetrics } from './request-metrics.js';

export { DEFAULT_METRICS_NAMESPACE, METRICS_NAMESPACE_VARIABLE };

/**
 * CloudWatch embedded metric format (EMF): a log line whose `_aws` member tells CloudWatch Logs which
 * of the line's fields are metrics and which are dimensions, so the request log line is also the
 * metrics, with no API call and no agent. Dimension sets are chosen for bounded cardinality (every
 * dimension value is a billed custom metric per metric name):
 * - none: the whole gateway, every metric (alarms and the dashboard's totals);
 * - `model`: traffic, failures, times, tokens and cost per public model id, set only for requests
 *   that reached a configured model (a client's unknown model name never becomes a metric);
 * - `accountId`: requests, throttles, tokens and cost per account, the numbers billed per team.
 * A metric costs the same each month whatever its traffic, so the per-model and per-account sets are
 * kept short (see docs/cost.md).
 */

/**
 * `off` leaves out the per-account set: 4 billed metrics per account add up once a gateway serves
 * hundreds of teams, whose usage the usage API reports anyway. The stack sets it from
 * `-c accountMetrics=false`; the line keeps its `accountId` field for Logs Insights either way.
 */
export const ACCOUNT_METRICS_VARIABLE = 'GATEWAY_ACCOUNT_METRICS';

const accountMetricsOn = (): boolean => process.env[ACCOUNT_METRICS_VARIABLE] !== 'off';

const times: readonly (keyof RequestMetrics)[] = ['latencyMs', 'firstByteMs', 'upstreamMs', 'overheadMs'];

/** Every metric of a request line, in the order of `RequestMetrics`. */
export const metricNames: readonly (keyof RequestMetrics)[] = [
  'requests',
  ...errorCounters,
  ...times,
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'cost',
];
/** The metrics kept per model: how much it is used, how it fails, how fast it answers. */
export const modelMetricNames: readonly (keyof RequestMetrics)[] = [
  'requests',
  'serverErrors',
  'upstreamErrors',
  'latencyMs',
  'firstByteMs',
  'overheadMs',
  'totalTokens',
  'cost',
];
/** The metrics kept per account: what an account uses and is billed, and how often it hits its limits. */
export const accountMetricNames: readonly (keyof RequestMetrics)[] = ['requests', 'throttled', 'totalTokens', 'cost'];

/**
 * A metric as a directive names it. Only times carry a unit (graphs label their axis with it): a unit
 * is optional, and `"Unit":"Count"` on each count was 15 bytes of every line for nothing a sum shows.
 */
interface MetricDefinition {
  readonly Name: string;
  readonly Unit?: 'Milliseconds';
}
const definitionOf = (name: keyof RequestMetrics): MetricDefinition =>
  times.includes(name) ? { Name: name, Unit: 'Milliseconds' } : { Name: name };

interface MetricDirective {
  readonly Namespace: string;
  readonly Dimensions: string[][];
  readonly Metrics: MetricDefinition[];
}

/** The error counters a line holds, as bits in `errorCounters` order. */
const countersOf = (metrics: RequestMetrics): number =>
  errorCounters.reduce((bits, counter, index) => (metrics[counter] === undefined ? bits : bits | (1 << index)), 0);

const directivesFor = (namespace: string, counters: number, hasModel: boolean, hasAccount: boolean) => {
  const named = (names: readonly (keyof RequestMetrics)[]) =>
    names
      .filter((name) => {
        const counter = (errorCounters as readonly string[]).indexOf(name);
        return counter < 0 || (counters & (1 << counter)) !== 0;
      })
      .map(definitionOf);
  const directives: MetricDirective[] = [{ Namespace: namespace, Dimensions: [[]], Metrics: named(metricNames) }];
  if (hasModel) directives.push({ Namespace: namespace, Dimensions: [['model']], Metrics: named(modelMetricNames) });
  if (hasAccount)
    directives.push({ Namespace: namespace, Dimensions: [['accountId']], Metrics: named(accountMetricNames) });
  return directives;
};

const namespaceNow = () => process.env[METRICS_NAMESPACE_VARIABLE] || DEFAULT_METRICS_NAMESPACE;

/**
 * The directives of a request line that reports `metrics`: `model` and `accountId` must be fields of
 * the same line when present.
 */
export const metricDirectives = (metrics: RequestMetrics, hasModel: boolean, hasAccount: boolean): MetricDirective[] =>
  directivesFor(namespaceNow(), countersOf(metrics), hasModel, hasAccount && accountMetricsOn());

/** Directive lists as JSON text, per namespace and variant, built when first used: a request only picks one. */
const prepared = new Map<string, Map<number, string>>();

/**
 * The `_aws` member of a request line, as JSON text. Its directives are the longest part of every
 * line and come in a few variants only, so each is serialized once; the line's writer puts the member
 * in as it is (it holds only the gateway's own names and a number: nothing to scan for secrets).
 */
export const metricsMember = (
  metrics: RequestMetrics,
  hasModel: boolean,
  hasAccount: boolean,
  timestamp: number,
): string => {
  const namespace = namespaceNow();
  let variants = prepared.get(namespace);
  if (!variants) prepared.set(namespace, (variants = new Map()));
  const withAccount = hasAccount && accountMetricsOn();
  const counters = countersOf(metrics);
  const variant = (counters << 2) | (hasModel ? 2 : 0) | (withAccount ? 1 : 0);
  let directives = variants.get(variant);
  if (directives === undefined) {
    directives = JSON.stringify(directivesFor(namespace, counters, hasModel, withAccount));
    variants.set(variant, directives);
  }
  return `"_aws":{"Timestamp":${Math.trunc(timestamp)},"CloudWatchMetrics":${directives}}`;
};
