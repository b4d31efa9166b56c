import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { functionGroups } from '../../functions/shared/routes.js';
import {
  ACCOUNT_METRICS_VARIABLE,
  metricNames,
  METRICS_NAMESPACE_VARIABLE,
} from '../../functions/shared/observability/embedded-metrics.js';
import { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

let stack: ModelGatewayStack;
let template: Template;

beforeAll(() => {
  stack = synthesizeGatewayStack();
  template = Template.fromStack(stack);
});

/** The dashboard body with its CloudFormation joins flattened into one string. */
const dashboardBody = (of: Template = template): string => {
  const [dashboard] = Object.values(of.findResources('AWS::CloudWatch::Dashboard'));
  const body = (dashboard as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody;
  const flatten = (value: unknown): string =>
    typeof value === 'string'
      ? value
      : Array.isArray(value)
        ? value.map(flatten).join('')
        : value && typeof value === 'object'
          ? flatten(Object.values(value))
          : '';
  return flatten(body);
};

describe('gateway monitoring', () => {
  test('tells every function the metric namespace of its stack', () => {
    for (const group of Object.keys(functionGroups)) {
      const properties =
        template.toJSON().Resources[stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as never)]
          .Properties;
      expect(properties.Environment.Variables[METRICS_NAMESPACE_VARIABLE]).toBe(stack.monitoring.namespace);
    }
    expect(stack.monitoring.namespace).toBe('ModelGateway/ModelGateway');
  });

  test('has one dashboard graphing requests, errors by class, latency, first byte, overhead, tokens and cost, by model and by account', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = dashboardBody();
    for (const name of [
      'requests',
      'clientErrors',
      'throttled',
      'serverErrors',
      'upstreamErrors',
      'latencyMs',
      'firstByteMs',
      'overheadMs',
      'promptTokens',
      'completionTokens',
      'cost',
    ]) {
      expect(body).toContain(`"${name}"`);
    }
    expect(body).toContain('{ModelGateway/ModelGateway,model} MetricName=\\"requests\\"');
    expect(body).toContain('{ModelGateway/ModelGateway,accountId} MetricName=\\"cost\\"');
    for (const name of metricNames) expect(body).toContain(name);
  });

  test('alarms on the upstream error rate and on 5xx answers, notifying one topic on alarm and on recovery', () => {
    // The alarm topic, beside the budget alerts' own (budget-alert-topic.test.ts).
    template.resourceCountIs('AWS::SNS::Topic', 2);
    const topicId = stack.getLogicalId(stack.monitoring.alarmTopic.node.defaultChild as never);
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    // These two, and the usage writer's dead-letter alarm (usage-delivery.test.ts).
    expect(Object.keys(alarms)).toHaveLength(3);
    for (const alarm of Object.values(alarms) as { Properties: Record<string, unknown> }[]) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests > 0, 100 * FILL(upstreamErrors, 0) / requests, 0)' }),
        Match.objectLike({
          Id: 'upstreamErrors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ MetricName: 'upstreamErrors', Namespace: 'ModelGateway/ModelGateway' }),
          }),
        }),
      ]),
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
      Statistic: 'Sum',
      Threshold: 5,
    });
  });

  test('subscribes the address given as alarmEmail context, and none without it', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const app = new App({
      outdir: cdkOutdir(),
      context: { 'aws:cdk:bundling-stacks': [], alarmEmail: 'ops@example.com' },
    });
    const withEmail = Template.fromStack(new ModelGatewayStack(app, 'ModelGateway'));
    withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  test('leaves out the per-account metrics and their graphs with accountMetrics=false, and keeps them by default', () => {
    const variablesOf = (of: ModelGatewayStack) =>
      Object.keys(functionGroups).map(
        (group) =>
          Template.fromStack(of).toJSON().Resources[
            of.getLogicalId(of.functions.functionFor(group).node.defaultChild as never)
          ].Properties.Environment.Variables as Record<string, string>,
      );
    for (const variables of variablesOf(stack)) expect(variables[ACCOUNT_METRICS_VARIABLE]).toBeUndefined();
    expect(dashboardBody()).toContain('accountId');

    const off = synthesizeGatewayStack({}, { context: { accountMetrics: 'false' } });
    for (const variables of variablesOf(off)) expect(variables[ACCOUNT_METRICS_VARIABLE]).toBe('off');
    const body = dashboardBody(Template.fromStack(off));
    expect(body).not.toContain('accountId');
    expect(body).toContain('model');

    expect(() => synthesizeGatewayStack({}, { context: { accountMetrics: 'no' } })).toThrow(/accountMetrics/);
  });
});
