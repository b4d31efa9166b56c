import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { stackSetting } from '../stack-settings.js';
import {
  ACCOUNT_METRICS_VARIABLE,
  METRICS_NAMESPACE_VARIABLE,
} from '../../functions/shared/observability/embedded-metrics.js';

export interface GatewayMonitoringProps {
  /** The functions whose request lines carry the metrics; each is told the namespace to use. */
  readonly functions: Readonly<Record<string, lambda.Function>>;
  readonly api: apigateway.RestApi;
  /**
   * An address the alarm topic mails (it must confirm the subscription); by default the `alarmEmail`
   * context value (`cdk deploy -c alarmEmail=ops@example.com`), else none.
   */
  readonly alarmEmail?: string;
  /** Percent of requests that an upstream failed, over five minutes, that raises the alarm. */
  readonly upstreamErrorPercent?: number;
  /** 5xx answers from the API within five minutes that raise the alarm. */
  readonly serverErrorCount?: number;
  /**
   * Whether request lines carry the per-account metrics (4 billed custom metrics per account); by
   * default the `accountMetrics` context value (`-c accountMetrics=false` turns them off), else on.
   */
  readonly accountMetrics?: boolean;
}

const PERIOD = Duration.minutes(5);

/**
 * What an operator watches: a CloudWatch dashboard of the gateway's own metrics (from the embedded
 * metric format in each request's log line: no agent, no PutMetricData calls), and two alarms, on
 * the share of requests an upstream failed and on 5xx answers, that notify one SNS topic.
 */
export class GatewayMonitoring extends Construct {
  /** `ModelGateway/<stack name>`: stages in one account keep their metrics apart. */
  readonly namespace: string;
  readonly alarmTopic: sns.Topic;
  readonly upstreamErrorAlarm: cloudwatch.Alarm;
  readonly serverErrorAlarm: cloudwatch.Alarm;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: GatewayMonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.namespace = `ModelGateway/${stack.stackName}`;
    const accountMetrics = props.accountMetrics ?? stackSetting(this.node, 'accountMetrics');
    for (const handler of Object.values(props.functions)) {
      handler.addEnvironment(METRICS_NAMESPACE_VARIABLE, this.namespace);
      if (!accountMetrics) handler.addEnvironment(ACCOUNT_METRICS_VARIABLE, 'off');
    }

    const metric = (metricName: string, statistic: string, dimensionsMap?: Record<string, string>) =>
      new cloudwatch.Metric({
        namespace: this.namespace,
        metricName,
        statistic,
        period: PERIOD,
        ...(dimensionsMap ? { dimensionsMap } : {}),
      });
    // Per model or account, without naming each one in the template: a search over the dimension.
    const searchBy = (dimension: 'model' | 'accountId', metricName: string, statistic: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${this.namespace},${dimension}} MetricName="${metricName}"', '${statistic}', ${PERIOD.toSeconds()})`,
        period: PERIOD,
      });

    const requests = metric('requests', 'Sum');
    const upstreamErrors = metric('upstreamErrors', 'Sum');

    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `model-gateway ${stack.stackName} alarms`,
      enforceSSL: true,
    });
    const alarmEmail = props.alarmEmail ?? stackSetting(this.node, 'alarmEmail');
    if (alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(alarmEmail));
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'The topic carries only alarm state changes (alarm names and thresholds, no request data); CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key would add a monthly cost for data that is not sensitive.',
    });
    const notify = new actions.SnsAction(this.alarmTopic);

    const upstreamErrorRate = new cloudwatch.MathExpression({
      // A line reports an error counter only when it is 1: a period with no failure has no data for it.
      expression: 'IF(requests > 0, 100 * FILL(upstreamErrors, 0) / requests, 0)',
      usingMetrics: { requests, upstreamErrors },
      label: 'upstream error %',
      period: PERIOD,
    });
    this.upstreamErrorAlarm = upstreamErrorRate.createAlarm(this, 'UpstreamErrorRateAlarm', {
      alarmDescription:
        'More requests than usual failed at the upstream (after failover): check the channels and their providers.',
      threshold: props.upstreamErrorPercent ?? 5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // API Gateway's own count: it includes answers no function logged (a crash, a timeout, a throttle).
    this.serverErrorAlarm = props.api
      .metricServerError({ period: PERIOD, statistic: 'Sum' })
      .createAlarm(this, 'ServerErrorAlarm', {
        alarmDescription: 'The API answered 5xx: upstream failures, function errors or timeouts.',
        threshold: props.serverErrorCount ?? 5,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    for (const alarm of [this.upstreamErrorAlarm, this.serverErrorAlarm]) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }

    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    const percentiles = (metricName: string) =>
      ['p50', 'p90', 'p99'].map((statistic) => metric(metricName, statistic).with({ label: statistic }));

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `model-gateway-${stack.stackName}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: [this.upstreamErrorAlarm, this.serverErrorAlarm],
            width: 8,
            height: 6,
          }),
          graph('Requests and errors by class', [
            requests.with({ label: 'requests' }),
            metric('clientErrors', 'Sum').with({ label: '4xx (client)' }),
            metric('throttled', 'Sum').with({ label: '429 (limits, quota)' }),
            metric('serverErrors', 'Sum').with({ label: '5xx' }),
            upstreamErrors.with({ label: 'upstream failed' }),
            metric('clientAborts', 'Sum').with({ label: 'client went away' }),
          ]),
          graph('Upstream error rate (%)', [upstreamErrorRate]),
        ],
        [
          graph('Latency (ms)', percentiles('latencyMs')),
          graph('Time to first byte (ms)', percentiles('firstByteMs')),
          graph('Gateway overhead (ms, upstream excluded)', percentiles('overheadMs')),
        ],
        [
          graph('Tokens', [
            metric('promptTokens', 'Sum').with({ label: 'prompt' }),
            metric('completionTokens', 'Sum').with({ label: 'completion' }),
          ]),
          graph('Cost (USD)', [metric('cost', 'Sum').with({ label: 'cost' })]),
          graph('Upstream time (ms)', percentiles('upstreamMs')),
        ],
        [
          graph('Requests by model', [searchBy('model', 'requests', 'Sum')]),
          graph('Latency p90 by model (ms)', [searchBy('model', 'latencyMs', 'p90')]),
          graph('Tokens by model', [searchBy('model', 'totalTokens', 'Sum')]),
        ],
        ...(accountMetrics
          ? [
              [
                graph('Requests by account', [searchBy('accountId', 'requests', 'Sum')]),
                graph('Cost by account (USD)', [searchBy('accountId', 'cost', 'Sum')]),
                graph('Throttled (429) by account', [searchBy('accountId', 'throttled', 'Sum')]),
              ],
            ]
          : []),
      ],
    });
  }
}
