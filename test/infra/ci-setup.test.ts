import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { observeAwsCalls, type AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import {
  adminKeyTableActions,
  CI_SESSION_HOURS,
  ciStackActions,
  CiSetupStack,
  type CiSetupStackProps,
} from '../../infra/ci-setup/ci-setup-stack.js';
import { flattenArn } from './granted-permissions.js';
import { bootstrapAdminKey } from '../../infra/local/bootstrap.js';
import { startTestGateway } from '../support/test-gateway.js';
import { requiredPermissions } from './required-permissions.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

/** The CI account setup (infra/ci-setup): an OIDC deploy role for main only, with the least it needs. */

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

const synthesize = (props: Partial<CiSetupStackProps> = {}) => {
  const app = new App({ outdir: cdkOutdir() });
  const stack = new CiSetupStack(app, 'ModelGatewayCiSetup', {
    githubRepository: 'example-org/model-gateway',
    ...props,
  });
  return { app, stack, resources: Template.fromStack(stack).toJSON().Resources as Resources };
};

const ofType = (resources: Resources, type: string) =>
  Object.values(resources).filter((resource) => resource.Type === type);

const statements = (resources: Resources) =>
  ofType(resources, 'AWS::IAM::Policy').flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Record<string, any>[],
  );

describe('the deploy role', () => {
  const { resources } = synthesize();
  const role = Object.entries(resources).find(
    ([id, resource]) => resource.Type === 'AWS::IAM::Role' && id.startsWith('DeployRole'),
  )?.[1];

  it('is assumed only through GitHub OIDC, by the main branch of the one repository, for STS', () => {
    expect(role!.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRoleWithWebIdentity',
        Effect: 'Allow',
        Principal: { Federated: expect.anything() },
        Condition: {
          StringEquals: {
            'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
            'token.actions.githubusercontent.com:sub': 'repo:example-org/model-gateway:ref:refs/heads/main',
          },
        },
      },
    ]);
  });

  it("creates GitHub's OIDC provider for the STS audience, and no user or access key", () => {
    const [provider] = ofType(resources, 'AWS::IAM::OIDCProvider');
    expect(provider?.Properties).toMatchObject({
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
    expect(ofType(resources, 'AWS::IAM::User')).toEqual([]);
    expect(ofType(resources, 'AWS::IAM::AccessKey')).toEqual([]);
  });

  it('deploys CI stacks only: CloudFormation on ModelGateway-ci-* stacks, never the bootstrap deploy role', () => {
    const granted = statements(resources).map((statement) => ({
      sid: statement.Sid,
      actions: [statement.Action].flat().sort(),
    }));
    expect(granted).toEqual([
      { sid: 'DeployCiStacksOnly', actions: [...ciStackActions].sort() },
      { sid: 'PassExecutionRoleToCloudFormation', actions: ['iam:PassRole'] },
      { sid: 'PublishAssets', actions: ['sts:AssumeRole'] },
      { sid: 'ReadBootstrapVersion', actions: ['ssm:GetParameter', 'ssm:GetParameters'] },
      { sid: 'ReadTemplatesFromStagingBucket', actions: ['s3:GetObject'] },
      { sid: 'RegisterAdminKeyInCiStages', actions: [...adminKeyTableActions].sort() },
      { sid: 'FindStaleCiStages', actions: ['cloudformation:ListStacks', 'cognito-idp:ListUserPools'] },
      { sid: 'DeleteLeftoverCiUserPools', actions: ['cognito-idp:DeleteUserPool', 'cognito-idp:UpdateUserPool'] },
    ]);
    const resourcesOf = (sid: string) =>
      [statements(resources).find((statement) => statement.Sid === sid)!.Resource].flat().map(flattenArn);

    // Every CloudFormation action that changes or reads a stack names CI stacks (or cdk's change set).
    expect(resourcesOf('DeployCiStacksOnly')).toEqual([
      'arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/ModelGateway-ci-*/*',
      'arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:changeSet/cdk-deploy-change-set/*',
    ]);
    // The bootstrap deploy role may change any stack: the role may not assume it, only publish assets.
    const assumable = statements(resources)
      .filter((statement) => [statement.Action].flat().includes('sts:AssumeRole'))
      .flatMap((statement) => [statement.Resource].flat().map(flattenArn));
    expect(assumable).toEqual([
      'arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-hnb659fds-file-publishing-role-<AWS::AccountId>-<AWS::Region>',
    ]);
    const passRole = statements(resources).find((statement) => statement.Sid === 'PassExecutionRoleToCloudFormation')!;
    expect(resourcesOf('PassExecutionRoleToCloudFormation')).toEqual([
      'arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-hnb659fds-cfn-exec-role-<AWS::AccountId>-<AWS::Region>',
    ]);
    expect(passRole.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } });
    expect(resourcesOf('RegisterAdminKeyInCiStages').join()).toContain(':table/ModelGateway-ci-*');
    // Pools carry no name in their ARN: only those tagged as a CI stage's.
    const pools = statements(resources).find((statement) => statement.Sid === 'DeleteLeftoverCiUserPools')!;
    expect(pools.Condition).toEqual({ StringLike: { 'aws:ResourceTag/model-gateway:stage': 'ci-*' } });
    // Nothing else is granted on every resource than the two list calls.
    const onEverything = statements(resources).filter((statement) => [statement.Resource].flat().includes('*'));
    expect(onEverything.map((statement) => statement.Sid)).toEqual(['FindStaleCiStages']);
  });

  it('keeps a session long enough for the destroy at the end of a long job', () => {
    expect(role!.Properties.MaxSessionDuration).toBe(CI_SESSION_HOURS * 3600);
    expect(CI_SESSION_HOURS * 3600).toBeGreaterThanOrEqual(7200);
  });

  it("sets API Gateway's account-level log role, which CI stages do not create, and keeps it on destroy", () => {
    const [account] = ofType(resources, 'AWS::ApiGateway::Account');
    expect(JSON.stringify(account?.Properties.CloudWatchRoleArn)).toContain('ApiGatewayLogRole');
    const logRole = Object.entries(synthesize().resources).find(([id]) => id.startsWith('ApiGatewayLogRole'))!;
    expect((logRole[1] as { DeletionPolicy?: string }).DeletionPolicy).toBe('Retain');
    expect(ofType(synthesize({ existingApiGatewayLogRole: true }).resources, 'AWS::ApiGateway::Account')).toEqual([]);
  });

  it('reuses an existing OIDC provider when asked, and takes another ref', () => {
    const { resources: reused } = synthesize({ existingOidcProvider: true, githubRef: 'refs/heads/release' });
    expect(ofType(reused, 'AWS::IAM::OIDCProvider')).toEqual([]);
    expect(
      JSON.stringify(ofType(reused, 'AWS::IAM::Role').map((found) => found.Properties.AssumeRolePolicyDocument)),
    ).toContain('repo:example-org/model-gateway:ref:refs/heads/release');
  });

  it('refuses a repository not given as owner/name', () => {
    expect(() => synthesize({ githubRepository: 'model-gateway' })).toThrow(/owner\/name/);
  });

  it('passes the cdk-nag AWS Solutions checks, as its app runs them', () => {
    const { app } = synthesize();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});

it("grants what `npm run admin-key` does in a stage's tables, and no more", async () => {
  const gateway = await startTestGateway();
  const calls: AwsCall[] = [];
  observeAwsCalls((call) => calls.push(call));
  try {
    await bootstrapAdminKey(generateApiKey().key);
  } finally {
    observeAwsCalls(undefined);
    await gateway.close();
  }

  const needed = [...new Set(calls.flatMap((call) => requiredPermissions(call, 'unused')))];

  // The role's table grant covers every table of a CI stage: what matters is the exact action set.
  expect([...new Set(needed.map((permission) => permission.split(' ')[0]))].sort()).toEqual(
    [...adminKeyTableActions].sort(),
  );
  expect(needed.filter((permission) => !/ table:(keys|accounts)$/.test(permission))).toEqual([]);
});
