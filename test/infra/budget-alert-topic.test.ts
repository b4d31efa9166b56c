import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ALERT_TOPIC_VARIABLE } from '../../functions/shared/accounting/alert-topic.js';
import { functionGroups } from '../../functions/shared/routes.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { flattenArn } from './granted-permissions.js';
import { synthesizeGatewayStack } from './synthesize.js';

/**
 * The budget-alert topic: encrypted, mailed where `-c budgetAlertEmail` says, and known to exactly the
 * functions that settle spending, which may publish to it and to nothing else in SNS.
 */

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

const SETTLING_GROUPS = ['chat', 'embeddings', 'images', 'audio'];
const OTHER_GROUPS = Object.keys(functionGroups).filter((group) => !SETTLING_GROUPS.includes(group));

const synthesize = (context: Record<string, unknown> = {}) => {
  const stack = synthesizeGatewayStack({}, { context });
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Resources };
};

const topicRef = (stack: ModelGatewayStack) =>
  `<${stack.getLogicalId(stack.budgetAlerts.topic.node.defaultChild as CfnElement)}>`;

const snsGrantsOf = (stack: ModelGatewayStack, resources: Resources, group: string): string[] => {
  const roleId = stack.getLogicalId(stack.functions.functionFor(group).role!.node.defaultChild as CfnElement);
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[])
    .flatMap((statement) =>
      [statement.Action as string | string[]]
        .flat()
        .filter((action) => action.startsWith('sns:') || action.startsWith('kms:'))
        .flatMap((action) => [statement.Resource].flat().map((resource) => `${action} ${flattenArn(resource)}`)),
    );
};

let stack: ModelGatewayStack;
let resources: Resources;

beforeAll(() => {
  ({ stack, resources } = synthesize());
});

it('is a topic of its own, encrypted with the AWS-managed SNS key and reached over TLS only', () => {
  const topic = resources[topicRef(stack).slice(1, -1)]!;
  expect(topic.Type).toBe('AWS::SNS::Topic');
  expect(flattenArn(topic.Properties.KmsMasterKeyId)).toMatch(/:alias\/aws\/sns$/);
  expect(stack.budgetAlerts.topic).not.toBe(stack.monitoring.alarmTopic);
  const policies = Object.values(resources).filter(
    (resource) =>
      resource.Type === 'AWS::SNS::TopicPolicy' &&
      JSON.stringify(resource.Properties.Topics) === JSON.stringify([{ Ref: topicRef(stack).slice(1, -1) }]),
  );
  expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
});

it.each(SETTLING_GROUPS)(
  'lets the %s function publish to the topic, and to nothing else, and tells it the topic',
  (group) => {
    expect(snsGrantsOf(stack, resources, group)).toEqual([`sns:Publish ${topicRef(stack)}`]);
    const variables = resources[stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as CfnElement)]!
      .Properties.Environment.Variables as Record<string, unknown>;
    expect(flattenArn(variables[ALERT_TOPIC_VARIABLE])).toBe(topicRef(stack));
  },
);

it.each(OTHER_GROUPS)('gives the %s function, which settles no spending, neither the grant nor the topic', (group) => {
  expect(snsGrantsOf(stack, resources, group)).toEqual([]);
  const variables = resources[stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as CfnElement)]!
    .Properties.Environment.Variables as Record<string, unknown>;
  expect(variables[ALERT_TOPIC_VARIABLE]).toBeUndefined();
});

const emailSubscriptions = (of: Resources) =>
  Object.values(of)
    .filter((resource) => resource.Type === 'AWS::SNS::Subscription' && resource.Properties.Protocol === 'email')
    .map((resource) => ({ endpoint: resource.Properties.Endpoint, topic: flattenArn(resource.Properties.TopicArn) }));

it('mails -c budgetAlertEmail, and no one without it', () => {
  expect(emailSubscriptions(resources)).toEqual([]);
  const mailed = synthesize({ budgetAlertEmail: 'finance@example.com' });
  expect(emailSubscriptions(mailed.resources)).toEqual([
    { endpoint: 'finance@example.com', topic: topicRef(mailed.stack) },
  ]);
});
