import type { CfnElement } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Template } from 'aws-cdk-lib/assertions';
import { tableNames } from '../../functions/shared/store/tables.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import type { Permission } from './required-permissions.js';

/**
 * What the synthesized template allows each function, in the `<action> <resource>` lines of
 * `required-permissions.ts`. A resource that is none of the known shapes (a `*`, an index wildcard,
 * another service's ARN) keeps its own text, so that it can only ever count as an extra grant.
 */

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties: Record<string, any>;
}

/** `{Fn::Join}`, `{Ref}` and `{Fn::GetAtt}` as one readable string: `<AWS::Region>`, `<Logical.Arn>`. */
export const flattenArn = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const {
    'Fn::Join': join,
    Ref: ref,
    'Fn::GetAtt': attribute,
  } = value as {
    'Fn::Join'?: [string, unknown[]];
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
  };
  if (join) return join[1].map(flattenArn).join(join[0]);
  if (ref) return `<${ref}>`;
  if (attribute) return `<${attribute[0]}.${attribute[1]}>`;
  return JSON.stringify(value);
};

export interface GrantedPermissions {
  /** Every permission of the role but its logging: DynamoDB, Secrets Manager, Bedrock, SNS, SQS. */
  readonly permissions: ReadonlySet<Permission>;
  /** The `logs:` actions and their resources: a function writes its own log group, and no other. */
  readonly logging: readonly string[];
}

/** What one gateway function's role allows. */
export const grantedPermissions = (stack: ModelGatewayStack, group: string): GrantedPermissions =>
  grantedPermissionsOf(stack, stack.functions.functionFor(group).role!, group);

/** What a role of the gateway stack allows: a function's, or the usage writer's. */
export const grantedPermissionsOf = (stack: ModelGatewayStack, role: iam.IRole, name: string): GrantedPermissions => {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, TemplateResource>;
  const logicalId = (element: unknown) => stack.getLogicalId(element as CfnElement);
  const roleId = logicalId((role as unknown as { node: { defaultChild: unknown } }).node.defaultChild);
  const secretPrefix = stack.functions.upstreamSecretPrefix;

  const known = new Map<string, string>([
    [
      `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${secretPrefix}/*`,
      'upstream-key-secrets',
    ],
    ['arn:<AWS::Partition>:bedrock:*::foundation-model/*', 'foundation-model'],
    ['arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*', 'inference-profile'],
    [`<${logicalId(stack.budgetAlerts.topic.node.defaultChild)}>`, 'budget-alert-topic'],
  ]);
  known.set(`<${logicalId(stack.security.cursorSecret.node.defaultChild)}>`, 'cursor-secret');
  const deadLetterQueue = stack.usageDelivery?.deadLetterQueue.node.defaultChild;
  if (deadLetterQueue) known.set(`<${logicalId(deadLetterQueue)}.Arn>`, 'usage-dead-letter-queue');
  for (const table of tableNames) {
    const tableId = logicalId(stack.tables.tables[table].node.defaultChild);
    known.set(`<${tableId}.Arn>`, `table:${table}`);
    for (const index of indexNamesOf(resources[tableId]))
      known.set(`<${tableId}.Arn>/index/${index}`, `table:${table}/index:${index}`);
  }

  const statements = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => flattenArn(role) === `<${roleId}>`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  const inline = (resources[roleId]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  statements.push(...inline.flatMap((policy) => policy.PolicyDocument.Statement));

  const permissions = new Set<Permission>();
  const logging: string[] = [];
  for (const statement of statements) {
    if (statement.Effect !== 'Allow')
      throw new Error(`A ${statement.Effect} statement on the ${name} role: compare it by hand.`);
    for (const action of [statement.Action].flat()) {
      for (const resource of [statement.Resource].flat().map(flattenArn)) {
        if (action.startsWith('logs:')) logging.push(`${action} ${resource}`);
        else permissions.add(`${action} ${known.get(resource) ?? resource}`);
      }
    }
  }
  return { permissions, logging };
};

const indexNamesOf = (table: TemplateResource | undefined): string[] =>
  ((table?.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((index) => index.IndexName);
