import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  USAGE_DELIVERY_VARIABLE,
  USAGE_LINE_FILTER_PATTERN,
} from '../../functions/shared/accounting/usage-delivery.js';
import { functionGroups } from '../../functions/shared/routes.js';
import { tableDefinitions } from '../../functions/shared/store/tables.js';
import { writesUsageRecords } from '../../infra/constructs/table-grants.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { flattenArn, grantedPermissions, grantedPermissionsOf } from './granted-permissions.js';
import { synthesizeGatewayStack } from './synthesize.js';
import { ofType, synthesizeStage, type Resources } from './synthesize-stage.js';

/**
 * `-c usageDelivery`: by default (`log`) the functions that leave usage records log them, and a
 * subscription on each of their log groups hands the lines to the usage writer, which alone may write
 * the usage table; with `store` the functions put their records themselves and none of that exists.
 */

const groups = Object.keys(functionGroups);
const usageGroups = groups.filter(writesUsageRecords);
const usageWrites = ['dynamodb:BatchWriteItem table:usage', 'dynamodb:PutItem table:usage'];

interface Synthesized {
  readonly stack: ModelGatewayStack;
  readonly template: Template;
  readonly resources: Resources;
}

const synthesize = (context: Record<string, unknown> = {}): Synthesized => {
  const stack = synthesizeGatewayStack({}, { context });
  const template = Template.fromStack(stack);
  return { stack, template, resources: template.toJSON().Resources as Resources };
};

const logicalId = (stack: ModelGatewayStack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

const environmentOf = ({ stack, resources }: Synthesized, group: string): Record<string, unknown> =>
  resources[logicalId(stack, stack.functions.functionFor(group))]!.Properties.Environment.Variables;

const usagePermissionsOf = ({ stack }: Synthesized, group: string) =>
  [...grantedPermissions(stack, group).permissions].filter((permission) => permission.includes(' table:usage')).sort();

describe('usage records delivered by log (the default)', () => {
  let synthesized: Synthesized;
  let writerId: string;
  beforeAll(() => {
    synthesized = synthesize({ logLevel: 'warn', usageRetentionDays: '90' });
    writerId = logicalId(synthesized.stack, synthesized.stack.usageDelivery!.writer);
  });

  it('takes the functions that leave usage records from the grants: the relaying ones', () => {
    expect([...usageGroups].sort()).toEqual(['audio', 'chat', 'embeddings', 'images']);
  });

  it('subscribes the usage writer to the log groups of exactly those functions, passing only usage lines', () => {
    const { stack, resources } = synthesized;
    const filters = ofType(resources, 'AWS::Logs::SubscriptionFilter').map((filter) => filter.Properties);
    const logGroupOf = (group: string) => logicalId(stack, stack.functions.logGroups[group]!);

    expect(filters.map((filter) => filter.LogGroupName.Ref).sort()).toEqual(usageGroups.map(logGroupOf).sort());
    for (const filter of filters) {
      expect(filter.FilterPattern).toBe(USAGE_LINE_FILTER_PATTERN);
      expect(filter.DestinationArn).toEqual({ 'Fn::GetAtt': [writerId, 'Arn'] });
    }
  });

  it('lets CloudWatch Logs invoke the writer from those log groups only', () => {
    const { stack, resources } = synthesized;
    const invokers = ofType(resources, 'AWS::Lambda::Permission')
      .map((permission) => permission.Properties)
      .filter((permission) => permission.Principal === 'logs.amazonaws.com');

    expect(invokers.map((permission) => flattenArn(permission.FunctionName))).toEqual(
      usageGroups.map(() => `<${writerId}.Arn>`),
    );
    expect(invokers.map((permission) => flattenArn(permission.SourceArn)).sort()).toEqual(
      usageGroups.map((group) => `<${logicalId(stack, stack.functions.logGroups[group]!)}.Arn>`).sort(),
    );
  });

  it.each(groups)(`sets ${USAGE_DELIVERY_VARIABLE} on the %s function only if it leaves usage records`, (group) => {
    expect(environmentOf(synthesized, group)[USAGE_DELIVERY_VARIABLE]).toBe(
      writesUsageRecords(group) ? 'log' : undefined,
    );
  });

  it('leaves usage writes to the writer: the relaying functions may not write the usage table', () => {
    for (const group of usageGroups) expect(usagePermissionsOf(synthesized, group)).toEqual([]);
  });

  it('lets the writer write the usage table, one item or a batch, and read or write no other', () => {
    const { stack } = synthesized;
    const { permissions } = grantedPermissionsOf(stack, stack.usageDelivery!.writer.role!, 'usage writer');

    expect([...permissions].filter((permission) => permission.startsWith('dynamodb:')).sort()).toEqual(usageWrites);
  });

  it('runs the writer on Node.js 24 and arm64, with the usage table, the operator settings and its own log group', () => {
    const { stack, resources } = synthesized;
    const writer = resources[writerId]!.Properties;

    expect(writer).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], MemorySize: 256, Timeout: 60 });
    expect(writer.Environment.Variables).toMatchObject({
      [tableDefinitions.usage.environmentVariable]: { Ref: logicalId(stack, stack.tables.tables.usage) },
      GATEWAY_LOG_LEVEL: 'warn',
      // The writer makes the item, its expiry included.
      GATEWAY_USAGE_RETENTION_DAYS: '90',
    });
    expect(writer.Environment.Variables[USAGE_DELIVERY_VARIABLE]).toBeUndefined();
    const logGroupId = logicalId(stack, stack.usageDelivery!.logGroup);
    expect(writer.LoggingConfig.LogGroup).toEqual({ Ref: logGroupId });
    expect(resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
  });

  it('retries a failed event twice within six hours, then sends it to the dead-letter queue', () => {
    const { stack, template } = synthesized;
    const queueId = logicalId(stack, stack.usageDelivery!.deadLetterQueue);

    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: writerId },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it('keeps dead letters 14 days in a queue encrypted by SQS, reached over TLS only', () => {
    const { stack, resources, template } = synthesized;
    const queueId = logicalId(stack, stack.usageDelivery!.deadLetterQueue);

    expect(ofType(resources, 'AWS::SQS::Queue')).toHaveLength(1);
    expect(resources[queueId]!.Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 86_400,
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('raises an alarm, on the alarm topic, when a dead letter is waiting', () => {
    const { stack, resources } = synthesized;
    const queueId = logicalId(stack, stack.usageDelivery!.deadLetterQueue);
    const topic = { Ref: logicalId(stack, stack.monitoring.alarmTopic) };
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm')
      .map((alarm) => alarm.Properties)
      .filter((alarm) => alarm.Namespace === 'AWS/SQS');

    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [topic],
      OKActions: [topic],
    });
  });

  it("shows that alarm's state on the dashboard", () => {
    const { stack, resources } = synthesized;
    const alarmId = logicalId(stack, stack.usageDelivery!.deadLetterAlarm);
    const [dashboard] = ofType(resources, 'AWS::CloudWatch::Dashboard');

    expect(JSON.stringify(dashboard!.Properties.DashboardBody)).toContain(`"Fn::GetAtt":["${alarmId}","Arn"]`);
  });
});

describe('usage records put by the functions themselves (-c usageDelivery=store)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize({ usageDelivery: 'store' });
  });

  it('has no usage writer, subscription, dead-letter queue or its alarm', () => {
    const { stack, resources } = synthesized;

    expect(stack.usageDelivery).toBeUndefined();
    expect(ofType(resources, 'AWS::Logs::SubscriptionFilter')).toEqual([]);
    expect(ofType(resources, 'AWS::SQS::Queue')).toEqual([]);
    expect(ofType(resources, 'AWS::Lambda::EventInvokeConfig')).toEqual([]);
    expect(ofType(resources, 'AWS::Lambda::Function')).toHaveLength(groups.length);
  });

  it.each(groups)(`sets no ${USAGE_DELIVERY_VARIABLE} on the %s function`, (group) => {
    expect(environmentOf(synthesized, group)[USAGE_DELIVERY_VARIABLE]).toBeUndefined();
  });

  it('keeps the relaying functions their usage writes', () => {
    for (const group of usageGroups) expect(usagePermissionsOf(synthesized, group)).toEqual(usageWrites);
  });
});

describe('an ephemeral stage', () => {
  it('deletes the dead-letter queue and the writer log group with the stack; a kept stage retains them', () => {
    const policiesOf = (stage: ReturnType<typeof synthesizeStage>) => {
      const { stack, resources } = stage;
      return [stack.usageDelivery!.deadLetterQueue, stack.usageDelivery!.logGroup].map((construct) => {
        const resource = resources[logicalId(stack, construct)]!;
        return [resource.DeletionPolicy, resource.UpdateReplacePolicy];
      });
    };

    expect(policiesOf(synthesizeStage({ stage: 'ci-77' }))).toEqual([
      ['Delete', 'Delete'],
      ['Delete', 'Delete'],
    ]);
    expect(policiesOf(synthesizeStage({ stage: 'dev' }))).toEqual([
      ['Retain', 'Retain'],
      ['Retain', 'Retain'],
    ]);
  });
});
