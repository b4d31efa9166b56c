import type { CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { functionGroups, type FunctionGroup } from '../../functions/shared/routes.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { pascalCase } from '../../infra/constructs/names.js';
import {
  runAwsOperationScenario,
  SCENARIO_ALERT_TOPIC_ARN,
  SCENARIO_SECRET_PREFIX,
} from '../support/aws-operation-scenario.js';
import { grantedPermissions } from './granted-permissions.js';
import { requiredPermissions, type Permission } from './required-permissions.js';
import { synthesizeGatewayStack } from './synthesize.js';

/**
 * IAM derived from behaviour: the scenario runs every path of every function on the local runtime,
 * recording each AWS call by the function that made it; each function's role in the synthesized
 * template must allow exactly what its calls need. A call the grants miss fails on AWS; a grant no
 * call needs is privilege nobody uses. Either fails here, naming the permission.
 */

let callsByGroup: ReadonlyMap<FunctionGroup, readonly AwsCall[]>;

const requiredBy = (group: FunctionGroup): Set<Permission> =>
  new Set(
    (callsByGroup.get(group) ?? []).flatMap((call) =>
      requiredPermissions(call, SCENARIO_SECRET_PREFIX, SCENARIO_ALERT_TOPIC_ARN),
    ),
  );

const difference = (left: ReadonlySet<Permission>, right: ReadonlySet<Permission>) =>
  [...left].filter((item) => !right.has(item)).sort();

const groups = Object.keys(functionGroups) as FunctionGroup[];

let stack: ModelGatewayStack;

beforeAll(async () => {
  callsByGroup = await runAwsOperationScenario();
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
