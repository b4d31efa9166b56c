import type { CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { USAGE_LINE_FILTER_PATTERN } from '../../functions/shared/accounting/usage-delivery.js';
import type { AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { functionGroups, type FunctionGroup } from '../../functions/shared/routes.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { pascalCase } from '../../infra/constructs/names.js';
import { writesUsageRecords } from '../../infra/constructs/table-grants.js';
import {
  runAwsOperationScenario,
  SCENARIO_ALERT_TOPIC_ARN,
  SCENARIO_SECRET_PREFIX,
} from '../support/aws-operation-scenario.js';
import type { LogLine } from '../support/captured-log-lines.js';
import { USAGE_WRITER } from '../support/usage-writer-delivery.js';
import { grantedPermissions, grantedPermissionsOf } from './granted-permissions.js';
import { requiredPermissions, type Permission } from './required-permissions.js';
import { synthesizeGatewayStack } from './synthesize.js';

/**
 * IAM derived from behaviour: the scenario runs every path of every function on the local runtime,
 * recording each AWS call by the function that made it; each function's role in the synthesized
 * template must allow exactly what its calls need. A call the grants miss fails on AWS; a grant no
 * call needs is privilege nobody uses. Either fails here, naming the permission. The template is the
 * default one, whose functions log their usage records for the usage writer (`-c usageDelivery=log`),
 * as the scenario's do.
 */

let callsByFunction: ReadonlyMap<string, readonly AwsCall[]>;
let usageLines: readonly LogLine[];

const requiredBy = (name: string): Set<Permission> =>
  new Set(
    (callsByFunction.get(name) ?? []).flatMap((call) =>
      requiredPermissions(call, SCENARIO_SECRET_PREFIX, SCENARIO_ALERT_TOPIC_ARN),
    ),
  );

const difference = (left: ReadonlySet<Permission>, right: ReadonlySet<Permission>) =>
  [...left].filter((item) => !right.has(item)).sort();

const groups = Object.keys(functionGroups) as FunctionGroup[];

let stack: ModelGatewayStack;

beforeAll(async () => {
  ({ callsByFunction, usageLines } = await runAwsOperationScenario());
  stack = synthesizeGatewayStack();
}, 180_000);

describe.each(groups)('the %s function', (group) => {
  it('is granted exactly the AWS operations it performs: none missing, none extra', () => {
    const required = requiredBy(group);
    const { permissions: granted } = grantedPermissions(stack, group);

    expect({ missing: difference(required, granted), extra: difference(granted, required) }).toEqual({
      missing: [],
      extra: [],
    });
  });

  it('writes logs to its own log group and to no other', () => {
    const logGroup = stack.functions.node.findChild(`${pascalCase(group)}Logs`).node.defaultChild as CfnElement;
    const ownLogGroup = `<${stack.getLogicalId(logGroup)}.Arn>`;

    const { logging } = grantedPermissions(stack, group);

    expect(logging.length).toBeGreaterThan(0);
    for (const grant of logging)
      expect(grant.split(' ')).toEqual([expect.stringMatching(/^logs:[A-Za-z]+$/), ownLogGroup]);
  });
});

describe('the usage writer', () => {
  /** Lambda sends the events it could not process, after their retries, to the dead-letter queue. */
  const deadLetters = ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map(
    (action) => `sqs:${action} usage-dead-letter-queue`,
  );

  it('is granted exactly the AWS operations it performs, and Lambda what it sends to its dead-letter queue', () => {
    const writer = stack.usageDelivery!.writer;
    const required = new Set([...requiredBy(USAGE_WRITER), ...deadLetters]);
    const { permissions: granted } = grantedPermissionsOf(stack, writer.role!, USAGE_WRITER);

    expect({ missing: difference(required, granted), extra: difference(granted, required) }).toEqual({
      missing: [],
      extra: [],
    });
    expect([...requiredBy(USAGE_WRITER)].sort()).toEqual([
      'dynamodb:BatchWriteItem table:usage',
      'dynamodb:PutItem table:usage',
    ]);
  });

  it('writes logs to its own log group and to no other', () => {
    const ownLogGroup = `<${stack.getLogicalId(stack.usageDelivery!.logGroup.node.defaultChild as CfnElement)}.Arn>`;

    const { logging } = grantedPermissionsOf(stack, stack.usageDelivery!.writer.role!, USAGE_WRITER);

    expect(logging.length).toBeGreaterThan(0);
    for (const grant of logging)
      expect(grant.split(' ')).toEqual([expect.stringMatching(/^logs:[A-Za-z]+$/), ownLogGroup]);
  });

  it('receives the usage lines the relaying functions wrote, each one its subscription passes', () => {
    // The subscription's filter, `{ $.<field> = "<value>" }`, as CloudWatch Logs applies it to a JSON line.
    const [, field, value] = /^\{ \$\.(\w+) = "([^"]+)" \}$/.exec(USAGE_LINE_FILTER_PATTERN)!;
    const endpoints = new Set(usageLines.map((line) => (line.usage as { endpoint?: string }).endpoint));

    expect(usageLines.length).toBeGreaterThan(0);
    for (const line of usageLines) expect(line[field!]).toBe(value);
    // Every relaying function wrote some (speech is the audio function's).
    expect([...endpoints]).toEqual(expect.arrayContaining(['chat', 'embeddings', 'images', 'speech']));
  });
});

it('leaves usage writes to the usage writer: no relaying function puts usage records itself', () => {
  const relaying = groups.filter(writesUsageRecords);
  expect(relaying.sort()).toEqual(['audio', 'chat', 'embeddings', 'images']);
  for (const group of relaying)
    expect([...requiredBy(group)].filter((permission) => permission.endsWith(' table:usage'))).toEqual([]);
});

it('sees every function that reaches AWS make its calls, so an empty recording cannot pass', () => {
  for (const group of groups.filter((name) => name !== 'fallback')) {
    expect({ group, calls: requiredBy(group).size > 0 }).toEqual({ group, calls: true });
  }
  expect(requiredBy('fallback').size).toBe(0);
});

it('reports a grant that no call needs as extra', () => {
  const widened = synthesizeGatewayStack();
  widened.functions
    .functionFor('models')
    .addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:DeleteItem'], resources: [widened.tables.tables.keys.tableArn] }),
    );

  const { permissions } = grantedPermissions(widened, 'models');

  expect(difference(permissions, requiredBy('models'))).toEqual(['dynamodb:DeleteItem table:keys']);
});
