import type { RequestMetrics } from './request-metrics.js';

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
export const METRICS_NAMESPACE_VARIABLE = 'GATEWAY_METRICS_NAMESPACE';
export const DEFAULT_METRICS_NAMESPACE = 'ModelGateway';
/**
 * `off` leaves out the per-account set: 4 billed metrics per account add up once a gateway serves
 * hundreds of teams, whose usage the usage API reports anyway. The stack sets it from
 * `-c accountMetrics=false`; the line keeps its `accountId` field for Logs Insights either way.
 */
export const ACCOUNT_METRICS_VARIABLE = 'GATEWAY_ACCOUNT_METRICS';

const accountMetricsOn = (): boolean => process.env[ACCOUNT_METRICS_VARIABLE] !== 'off';

type Unit = 'Count' | 'Milliseconds' | 'None';

const times: readonly (keyof RequestMetrics)[] = ['latencyMs', 'firstByteMs', 'upstreamMs', 'overheadMs'];
const unitOf = (name: keyof RequestMetrics): Unit =>
  times.includes(name) ? 'Milliseconds' : name === 'cost' ? 'None' : 'Count';

/** Every metric of a request line, in the order of `RequestMetrics`. */
export const metricNames: readonly (keyof RequestMetrics)[] = [
  'requests',
  'clientErrors',
  'throttled',
  'serverErrors',
  'upstreamErrors',
  'clientAborts',
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

const definitions = (names: readonly (keyof RequestMetrics)[]) =>
  names.map((name) => ({ Name: name, Unit: unitOf(name) }));

interface MetricDirective {
  readonly Namespace: string;
  readonly Dimensions: string[][];
  readonly Metrics: { Name: string; Unit: Unit }[];
}

const directivesFor = (namespace: string, hasModel: boolean, hasAccount: boolean): MetricDirective[] => [
  { Namespace: namespace, Dimensions: [[]], Metrics: definitions(metricNames) },
  ...(hasModel ? [{ Namespace: namespace, Dimensions: [['model']], Metrics: definitions(modelMetricNames) }] : []),
  ...(hasAccount
    ? [{ Namespace: namespace, Dimensions: [['accountId']], Metrics: definitions(accountMetricNames) }]
    : []),
];

/** The four possible directive lists as JSON text, built once per namespace: a request only picks one. */
const prepared = new Map<string, readonly string[]>();

/** The directives of a request line: `model` and `accountId` must be fields of the same line when present. */
export const metricDirectives = (hasModel: boolean, hasAccount: boolean): MetricDirective[] =>
  directivesFor(process.env[METRICS_NAMESPACE_VARIABLE] || DEFAULT_METRICS_NAMESPACE, hasModel, hasAccount);

/**
 * The `_aws` member of a request line, as JSON text. Its directives are the longest part of every
 * line and never change, so they are serialized once; the line's writer puts the member in as it is
 * (it holds only the gateway's own names and a number: nothing to scan for secrets).
 */
export const metricsMember = (hasModel: boolean, hasAccount: boolean, timestamp: number): string => {
  const namespace = process.env[METRICS_NAMESPACE_VARIABLE] || DEFAULT_METRICS_NAMESPACE;
  let variants = prepared.get(namespace);
  if (!variants) {
    variants = [false, true].flatMap((model) =>
      [false, true].map((account) => JSON.stringify(directivesFor(namespace, model, account))),
    );
    prepared.set(namespace, variants);
  }
  const directives = variants[(hasModel ? 2 : 0) + (hasAccount && accountMetricsOn() ? 1 : 0)]!;
  return `"_aws":{"Timestamp":${Math.trunc(timestamp)},"CloudWatchMetrics":${directives}}`;
};
