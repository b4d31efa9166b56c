import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import { addStageStack, stageFromContext } from '../../infra/stage.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

/**
 * Stages: `-c stage=<name>` names the stack and, through it, everything else; `ci-*` stages and
 * `-c ephemeral=true` leave nothing behind on destroy; any other stage keeps its data.
 */

const cdkContext = (
  JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

/** The template of one stage, as `cdk synth -c …` builds it (without running esbuild). */
const synthesizeStage = (context: Record<string, string>) => {
  const app = new App({ outdir: cdkOutdir(), context: { ...cdkContext, ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = addStageStack(app);
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Resources };
};

const ofType = (resources: Resources, ...types: string[]) =>
  Object.values(resources).filter((resource) => types.includes(resource.Type));

describe('stage settings from the context', () => {
  const settings = (context: Record<string, string>) =>
    stageFromContext(new App({ outdir: cdkOutdir(), context }).node);

  it('deploys the prod stage, kept, when no stage is given', () => {
    expect(settings({})).toEqual({ stage: 'prod', stackName: 'ModelGateway-prod', ephemeral: false });
  });

  it('names the stack after the stage', () => {
    expect(settings({ stage: 'dev' })).toEqual({ stage: 'dev', stackName: 'ModelGateway-dev', ephemeral: false });
  });

  it('makes ci-* stages ephemeral', () => {
    expect(settings({ stage: 'ci-123' })).toEqual({
      stage: 'ci-123',
      stackName: 'ModelGateway-ci-123',
      ephemeral: true,
    });
  });

  it('makes any stage ephemeral with -c ephemeral=true, and a ci-* stage kept with -c ephemeral=false', () => {
    expect(settings({ stage: 'preview', ephemeral: 'true' }).ephemeral).toBe(true);
    expect(settings({ stage: 'ci-keep', ephemeral: 'false' }).ephemeral).toBe(false);
  });

  it.each(['Prod', 'dev_1', 'a/b', '-dev', 'dev-', '', 'x'.repeat(41)])('refuses the stage name %p', (stage) => {
    expect(() => settings({ stage })).toThrow(/-c stage=/);
  });

  it('refuses an ephemeral flag that is not true or false', () => {
    expect(() => settings({ ephemeral: 'yes' })).toThrow(/-c ephemeral/);
  });
});

describe('an ephemeral stage (ci-123)', () => {
  const { stack, resources } = synthesizeStage({ stage: 'ci-123' });

  it('deletes every table and log group with the stack', () => {
    const stateful = ofType(resources, 'AWS::DynamoDB::GlobalTable', 'AWS::DynamoDB::Table', 'AWS::Logs::LogGroup');
    expect(stateful.length).toBeGreaterThan(6);
    for (const resource of stateful) {
      expect({ type: resource.Type, deletion: resource.DeletionPolicy, replace: resource.UpdateReplacePolicy }).toEqual(
        {
          type: resource.Type,
          deletion: 'Delete',
          replace: 'Delete',
        },
      );
    }
  });

  it("leaves no IAM role behind: it uses the account's API Gateway log role rather than making one", () => {
    expect(ofType(resources, 'AWS::ApiGateway::Account')).toEqual([]);
    for (const role of ofType(resources, 'AWS::IAM::Role')) expect(role.DeletionPolicy).toBeUndefined();
  });

  it('force-deletes the upstream key secrets under its own prefix when the stack is deleted', () => {
    const [cleanup, ...others] = ofType(resources, 'Custom::StageSecretsCleanup');
    expect(others).toEqual([]);
    expect(cleanup?.Properties.SecretPrefix).toBe('model-gateway/ModelGateway-ci-123/channels');
    expect(stack.functions.upstreamSecretPrefix).toBe('model-gateway/ModelGateway-ci-123/channels');
  });

  it('lets the clean-up delete secrets under the stage prefix only', () => {
    const statements = ofType(resources, 'AWS::IAM::Policy')
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('SecretsCleanupRole'))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
    const deletes = statements.filter((statement) => [statement.Action].flat().includes('secretsmanager:DeleteSecret'));
    expect(deletes).toHaveLength(1);
    expect(JSON.stringify(deletes[0]!.Resource)).toContain(':secret:model-gateway/ModelGateway-ci-123/channels/*');
  });
});

describe('a kept stage (prod)', () => {
  const { resources } = synthesizeStage({});

  it('retains its tables on destroy', () => {
    const tables = ofType(resources, 'AWS::DynamoDB::GlobalTable');
    const retained = tables.filter((table) => table.DeletionPolicy === 'Retain');
    // Every table but the rate-limit counters, which matter for one window only.
    expect(retained).toHaveLength(tables.length - 1);
  });

  it('has no secret clean-up: its upstream keys stay with its retained tables', () => {
    expect(ofType(resources, 'Custom::StageSecretsCleanup')).toEqual([]);
  });
});

/** Names that must be unique in an account and region (or account-wide), by resource type. */
const uniqueNameProperties: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SQS::Queue': 'QueueName',
};

it('gives two stages in one account and region no physical name in common', () => {
  const fixedNames = (resources: Resources) =>
    Object.values(resources).flatMap((resource) => {
      const property = uniqueNameProperties[resource.Type];
      const value: unknown = property ? resource.Properties?.[property] : undefined;
      // A name built from a reference (`{Fn::Join}` on the API id, …) differs per stack by construction.
      return typeof value === 'string' ? [`${resource.Type} ${value}`] : [];
    });
  const dev = fixedNames(synthesizeStage({ stage: 'dev' }).resources);
  const prod = new Set(fixedNames(synthesizeStage({}).resources));

  expect(dev.filter((name) => prod.has(name))).toEqual([]);
});

it('synthesizes `cdk synth -c stage=ci-123` offline, bundles and cdk-nag included', async () => {
  const output = mkdtempSync(path.join(tmpdir(), 'cdk-out-'));
  try {
    await promisify(execFile)(
      path.join(projectRoot, 'node_modules', '.bin', 'cdk'),
      ['synth', '-c', 'stage=ci-123', '--quiet', '--no-notices', '--no-version-reporting', '--output', output],
      { cwd: projectRoot, env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' }, timeout: 280_000 },
    );
    const template = JSON.parse(readFileSync(path.join(output, 'ModelGateway-ci-123.template.json'), 'utf8')) as {
      Resources: Resources;
    };
    expect(ofType(template.Resources, 'Custom::StageSecretsCleanup')).toHaveLength(1);
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}, 300_000);

describe('a command without -c stage=', () => {
  /** Runs the CDK app as the CLI does (context and output folder in the environment), without esbuild. */
  const runApp = async (context: Record<string, string>) => {
    const output = mkdtempSync(path.join(tmpdir(), 'cdk-app-'));
    try {
      const { stderr } = await promisify(execFile)(
        path.join(projectRoot, 'node_modules', '.bin', 'node'),
        ['--import', 'tsx', path.join(projectRoot, 'infra', 'app.ts')],
        {
          cwd: projectRoot,
          env: {
            ...process.env,
            CDK_OUTDIR: output,
            CDK_CONTEXT_JSON: JSON.stringify({ ...cdkContext, ...context, 'aws:cdk:bundling-stacks': [] }),
          },
          timeout: 170_000,
        },
      );
      return stderr;
    } finally {
      rmSync(output, { recursive: true, force: true });
    }
  };

  it('warns that it works on prod, as `cdk destroy` would', async () => {
    expect(await runApp({})).toMatch(/WARNING .*no -c stage=<name> given.*'prod' stage \(ModelGateway-prod\)/);
  }, 180_000);

  it('says nothing when the stage is given', async () => {
    expect(await runApp({ stage: 'dev' })).not.toContain('WARNING');
  }, 180_000);
});
