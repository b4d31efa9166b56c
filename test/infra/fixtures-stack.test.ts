import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import { addFixturesStack } from '../../infra/fixtures/fixtures-stage.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

/** The fixtures stack of a stage, as `cdk synth -c stage=…` builds it (without running esbuild). */
const cdkContext = (
  JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;
const fixturesOf = (stage: string) =>
  addFixturesStack(new App({ outdir: cdkOutdir(), context: { ...cdkContext, stage, 'aws:cdk:bundling-stacks': [] } }));

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DeletionPolicy?: string }>;

describe('the fixtures stack', () => {
  const stack = fixturesOf('ci-123')!;
  const template = Template.fromStack(stack).toJSON() as {
    Resources: Resources;
    Parameters: Record<string, any>;
    Outputs: Record<string, any>;
  };
  const ofType = (type: string) => Object.values(template.Resources).filter((resource) => resource.Type === type);

  it('exists for CI stages only, named after the stage', () => {
    expect(stack.stackName).toBe('ModelGateway-ci-123-fixtures');
    expect(fixturesOf('prod')).toBeUndefined();
    expect(fixturesOf('dev')).toBeUndefined();
  });

  it('serves the fake through a streaming function URL, and outputs that URL', () => {
    const [url] = ofType('AWS::Lambda::Url');
    expect(url!.Properties.InvokeMode).toBe('RESPONSE_STREAM');
    expect(template.Outputs.FakeUpstreamUrl.Value).toEqual({ 'Fn::GetAtt': [expect.any(String), 'FunctionUrl'] });
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(1);
    expect(functions[0]!.Properties.Environment.Variables.FAKE_UPSTREAM_TOKEN).toEqual({ Ref: 'FakeUpstreamToken' });
  });

  it('takes its control token as a hidden parameter, long enough to guess at no cost', () => {
    expect(template.Parameters.FakeUpstreamToken).toMatchObject({ Type: 'String', NoEcho: true, MinLength: 32 });
  });

  it('keeps the sessions in a table with a TTL, and deletes table and logs with the stack', () => {
    const [table] = ofType('AWS::DynamoDB::GlobalTable');
    expect(table!.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(table!.Properties.KeySchema).toEqual([
      { AttributeName: 'session', KeyType: 'HASH' },
      { AttributeName: 'entry', KeyType: 'RANGE' },
    ]);
    for (const resource of [...ofType('AWS::DynamoDB::GlobalTable'), ...ofType('AWS::Logs::LogGroup')])
      expect(resource.DeletionPolicy).toBe('Delete');
  });

  it('grants the function the item calls of its table and nothing else', () => {
    const statements = ofType('AWS::IAM::Policy').flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    const tableStatements = statements.filter((statement: any) =>
      [statement.Action].flat().some((action: string) => action.startsWith('dynamodb:')),
    );
    expect(tableStatements).toHaveLength(1);
    expect([tableStatements[0].Action].flat().sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const actions = statements.flatMap((statement: any) => [statement.Action].flat());
    expect(actions.filter((action: string) => !/^(dynamodb|logs):/.test(action))).toEqual([]);
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
