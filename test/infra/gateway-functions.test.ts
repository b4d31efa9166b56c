import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { functionGroups } from '../../functions/shared/routes.js';
import { tableDefinitions, tableNames, type TableName } from '../../functions/shared/store/tables.js';
import { relayGrants, tableGrantStatements, tableGrantsFor } from '../../infra/constructs/table-grants.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const groups = Object.keys(functionGroups);

let stack: ModelGatewayStack;
let template: Template;
let resources: Record<string, { Type: string; Properties: Record<string, any> }>;

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

const functionProperties = (group: string) => resources[logicalId(stack.functions.functionFor(group))]!.Properties;

/** Every policy statement attached to a group's role. */
const statementsOf = (group: string): Statement[] => {
  const roleId = logicalId(stack.functions.functionFor(group).role as never);
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
};

/** The actions a group's role is allowed on one table (its ARN or its indexes). */
const actionsOn = (group: string, table: TableName): string[] => {
  const tableArn = JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.tables.tables[table]), 'Arn'] });
  return statementsOf(group)
    .filter((statement) => JSON.stringify(statement.Resource).includes(tableArn))
    .flatMap((statement) => [statement.Action].flat());
};

const dynamodbActions = (group: string) =>
  statementsOf(group)
    .flatMap((statement) => [statement.Action].flat())
    .filter((action) => action.startsWith('dynamodb:'));

beforeAll(() => {
  stack = synthesizeGatewayStack();
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

describe('gateway functions', () => {
  it('creates one function per endpoint group and no other, besides the usage writer', () => {
    template.resourceCountIs('AWS::Lambda::Function', groups.length + 1);
    expect(Object.keys(stack.functions.functions).sort()).toEqual([...groups].sort());
  });

  it.each(groups)('runs the %s function on arm64 with an explicit Node.js runtime', (group) => {
    const properties = functionProperties(group);
    expect(properties.Architectures).toEqual(['arm64']);
    expect(properties.Runtime).toMatch(/^nodejs(22|24)\.x$/);
    expect(properties.Handler).toBe('index.handler');
  });

  it.each(groups)('sizes the %s function from its group definition', (group) => {
    const definition = functionGroups[group as keyof typeof functionGroups];
    const properties = functionProperties(group);
    expect(properties.MemorySize).toBe(definition.memorySize);
    expect(properties.Timeout).toBe(definition.timeoutSeconds);
  });

  it.each(groups)('tells the %s function every table name and the cache TTL', (group) => {
    const variables = functionProperties(group).Environment.Variables;
    for (const table of tableNames) {
      expect(variables[tableDefinitions[table].environmentVariable]).toEqual({
        Ref: logicalId(stack.tables.tables[table]),
      });
    }
    expect(variables.GATEWAY_CACHE_TTL_MS).toBe('30000');
  });

  it.each(groups)('writes the %s function logs to its own log group, kept for a month', (group) => {
    const logGroupId = functionProperties(group).LoggingConfig.LogGroup.Ref as string;
    expect(resources[logGroupId]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
  });

  it('gives the functions roles without AWS managed policies', () => {
    const roles = Object.values(resources).filter((resource) => resource.Type === 'AWS::IAM::Role');
    const lambdaRoles = roles.filter((role) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
    );
    // One per group, and the usage writer's.
    expect(lambdaRoles).toHaveLength(groups.length + 1);
    for (const role of lambdaRoles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('gives the fallback function no DynamoDB permission at all', () => {
    expect(dynamodbActions('fallback')).toEqual([]);
  });

  it('lets the models function read the key table and write only when a key was last used', () => {
    const actions = actionsOn('models', 'keys');
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions.filter((action) => writeActions.includes(action))).toEqual(['dynamodb:UpdateItem']);
  });

  it('gives the models function no access to counters, usage or spend', () => {
    expect(actionsOn('models', 'counters')).toEqual([]);
    expect(actionsOn('models', 'usage')).toEqual([]);
    expect(actionsOn('models', 'spend')).toEqual([]);
  });

  it('gives the admin function no access to rate-limit counters, which only relays count', () => {
    expect(actionsOn('admin', 'counters')).toEqual([]);
  });

  it.each(['chat', 'embeddings', 'images', 'audio'])(
    "lets the %s function update its account's spend shards but never write accounts, channels or models, and keys only when last used",
    (group) => {
      expect(actionsOn(group, 'spend')).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
      for (const table of ['accounts', 'channels', 'models'] as const) {
        expect(actionsOn(group, table).filter((action) => writeActions.includes(action))).toEqual([]);
      }
      // The time a key was last used (key-use.ts): an update, never a new or deleted key.
      expect(actionsOn(group, 'keys').filter((action) => writeActions.includes(action))).toEqual([
        'dynamodb:UpdateItem',
      ]);
    },
  );

  it.each(groups)('names every index the %s function may query, never index/*', (group) => {
    const resources = statementsOf(group).flatMap((statement) => [statement.Resource].flat());
    expect(JSON.stringify(resources)).not.toContain('/index/*');
  });

  it('refuses at synthesis a grant on an index the table does not define', () => {
    const grants = { ...tableGrantsFor('admin'), 'usage/index/byNothing': ['Query'] } as const;

    expect(() => tableGrantStatements('admin', stack.tables.tables, grants)).toThrow(/index 'byNothing'/);
  });

  it('gives a group without an entry in the grant table the relay grants', () => {
    expect(tableGrantsFor('embeddings')).toBe(relayGrants);
  });
});
