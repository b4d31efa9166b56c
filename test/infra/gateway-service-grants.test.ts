import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** A group's grants beyond DynamoDB: action → the resources it is allowed on, flattened. */
type Grants = Record<string, string[]>;

const PREFIX = 'model-gateway/ModelGateway/channels';
const UPSTREAM_SECRETS = `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${PREFIX}/*`;
const FOUNDATION_MODELS = 'arn:<AWS::Partition>:bedrock:*::foundation-model/*';
const INFERENCE_PROFILES = 'arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*';
const relayGroups = ['chat', 'embeddings', 'images', 'audio'];

let stack: ModelGatewayStack;
let resources: Record<string, { Type: string; Properties: Record<string, any> }>;

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** `{Fn::Join}` and `{Ref}` as one readable string, `<AWS::Region>` for a reference. */
const flatten = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const { 'Fn::Join': join, Ref: ref } = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string };
  if (join) return join[1].map(flatten).join(join[0]);
  if (ref) return `<${ref}>`;
  return JSON.stringify(value);
};

/** The Secrets Manager and Bedrock actions a group's role is allowed, each with its resources. */
const serviceGrantsOf = (group: string): Grants => {
  const roleId = logicalId(stack.functions.functionFor(group).role as never);
  const statements = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  const grants: Grants = {};
  for (const statement of statements) {
    expect(statement.Effect).toBe('Allow');
    for (const action of [statement.Action].flat()) {
      if (!/^(secretsmanager|bedrock):/.test(action)) continue;
      grants[action] = [...(grants[action] ?? []), ...[statement.Resource].flat().map(flatten)].sort();
    }
  }
  return grants;
};

const environmentOf = (group: string): Record<string, unknown> =>
  resources[logicalId(stack.functions.functionFor(group))]!.Properties.Environment.Variables;

beforeAll(() => {
  stack = synthesizeGatewayStack();
  resources = Template.fromStack(stack).toJSON().Resources;
});

describe('upstream key secrets', () => {
  it('lets the admin function create, rotate, restore and delete secrets under the prefix, and read only the cursor secret', () => {
    expect(serviceGrantsOf('admin')).toEqual({
      'secretsmanager:CreateSecret': [UPSTREAM_SECRETS],
      'secretsmanager:PutSecretValue': [UPSTREAM_SECRETS],
      'secretsmanager:DeleteSecret': [UPSTREAM_SECRETS],
      'secretsmanager:RestoreSecret': [UPSTREAM_SECRETS],
      'secretsmanager:TagResource': [UPSTREAM_SECRETS],
      // The secret that signs page cursors: never an upstream key.
      'secretsmanager:GetSecretValue': [expect.stringMatching(/CursorSecret/)],
    });
  });

  it.each(relayGroups)('lets the %s function only read secrets under the prefix', (group) => {
    const secretGrants = Object.entries(serviceGrantsOf(group)).filter(([action]) =>
      action.startsWith('secretsmanager:'),
    );
    expect(Object.fromEntries(secretGrants)).toEqual({ 'secretsmanager:GetSecretValue': [UPSTREAM_SECRETS] });
  });

  it.each(['models', 'fallback'])('gives the %s function no Secrets Manager or Bedrock access', (group) => {
    expect(serviceGrantsOf(group)).toEqual({});
  });

  it.each([...relayGroups, 'admin'])('tells the %s function the secret prefix', (group) => {
    expect(environmentOf(group).UPSTREAM_SECRET_PREFIX).toBe(PREFIX);
  });

  it.each(['models', 'fallback'])('leaves the secret prefix out of the %s function', (group) => {
    expect(environmentOf(group).UPSTREAM_SECRET_PREFIX).toBeUndefined();
  });

  it('takes the prefix from the stack name', () => {
    expect(stack.functions.upstreamSecretPrefix).toBe(`model-gateway/${stack.stackName}/channels`);
  });
});

describe('Bedrock', () => {
  it('lets the chat function invoke foundation models in any region and inference profiles of its account in any region', () => {
    const bedrock = Object.entries(serviceGrantsOf('chat')).filter(([action]) => action.startsWith('bedrock:'));
    expect(Object.fromEntries(bedrock)).toEqual({
      'bedrock:InvokeModel': [FOUNDATION_MODELS, INFERENCE_PROFILES].sort(),
      'bedrock:InvokeModelWithResponseStream': [FOUNDATION_MODELS, INFERENCE_PROFILES].sort(),
    });
  });

  it.each(['admin', 'models', 'fallback', 'embeddings', 'images', 'audio'])(
    'gives the %s function no Bedrock action',
    (group) => {
      expect(Object.keys(serviceGrantsOf(group)).filter((action) => action.startsWith('bedrock:'))).toEqual([]);
    },
  );
});

it('scopes every Secrets Manager and Bedrock grant to ARN patterns, never to "*"', () => {
  const statements = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
    .filter((statement) => [statement.Action].flat().some((action) => /^(secretsmanager|bedrock):/.test(action)));
  expect(statements.length).toBeGreaterThan(0);
  for (const statement of statements) expect([statement.Resource].flat()).not.toContain('*');
});
