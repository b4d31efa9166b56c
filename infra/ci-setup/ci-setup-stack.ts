import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ciStagePrefix, stackNameForStage, stageTagKey } from '../stage.js';

/**
 * The one-time setup of an AWS account for the CI workflows (docs/ci.md): GitHub's OIDC provider and
 * a deploy role that only the repository's main branch can assume, with no long-lived key. The role
 * can do these things, each for CI stages only:
 * - deploy and destroy their stacks: CloudFormation calls on `ModelGateway-ci-*` stacks, passing the
 *   CDK bootstrap execution role, and publishing assets through the bootstrap publishing role. It
 *   may not assume the bootstrap deploy role, which can change any stack in the account;
 * - register an admin key in a CI stage's tables (`npm run admin-key`);
 * - list stacks and user pools, and delete a CI stage's pool a run left behind.
 * It also sets API Gateway's account-level CloudWatch role, which the stages' access and execution
 * logs need: CI stages do not create one each, since a role kept after every destroy would pile up.
 */
export interface CiSetupStackProps extends StackProps {
  /** `owner/name` of the GitHub repository whose workflows may deploy. */
  readonly githubRepository: string;
  /** The git ref allowed to assume the role; `refs/heads/main` by default. */
  readonly githubRef?: string;
  /** Reuse the account's GitHub OIDC provider (an account holds one per URL) instead of creating it. */
  readonly existingOidcProvider?: boolean;
  /** The CDK bootstrap qualifier; `hnb659fds` (the default) unless the account was bootstrapped with another. */
  readonly bootstrapQualifier?: string;
  /** Leave API Gateway's account-level CloudWatch role as it is (set already, e.g. by a kept stage). */
  readonly existingApiGatewayLogRole?: boolean;
}

const githubIssuer = 'token.actions.githubusercontent.com';

/** What `cdk deploy` and `cdk destroy` do with a stack through CloudFormation. */
export const ciStackActions = [
  'cloudformation:CreateChangeSet',
  'cloudformation:DescribeChangeSet',
  'cloudformation:ExecuteChangeSet',
  'cloudformation:DeleteChangeSet',
  'cloudformation:DescribeStacks',
  'cloudformation:DescribeStackEvents',
  'cloudformation:GetTemplate',
  'cloudformation:GetTemplateSummary',
  'cloudformation:ListStackResources',
  'cloudformation:DeleteStack',
] as const;

/**
 * A CI run's job lasts at most an hour, and its destroy step takes fresh credentials: two hours of
 * session leave room for a slow destroy after a long test run.
 */
export const CI_SESSION_HOURS = 2;

/** What `npm run admin-key` does in a stage's tables: reads and puts the admin account and key. */
export const adminKeyTableActions = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

export class CiSetupStack extends Stack {
  readonly deployRole: iam.Role;

  constructor(scope: Construct, id: string, props: CiSetupStackProps) {
    super(scope, id, props);
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(props.githubRepository)) {
      throw new Error(`githubRepository '${props.githubRepository}': give it as owner/name.`);
    }
    const qualifier = props.bootstrapQualifier ?? 'hnb659fds';
    const providerArn = props.existingOidcProvider
      ? `arn:${this.partition}:iam::${this.account}:oidc-provider/${githubIssuer}`
      : new iam.CfnOIDCProvider(this, 'GitHubOidcProvider', {
          url: `https://${githubIssuer}`,
          clientIdList: ['sts.amazonaws.com'],
        }).attrArn;

    this.deployRole = new iam.Role(this, 'DeployRole', {
      description: `model-gateway CI: deploys, tests and destroys ci-* stages from ${props.githubRepository}`,
      assumedBy: new iam.WebIdentityPrincipal(providerArn, {
        StringEquals: {
          [`${githubIssuer}:aud`]: 'sts.amazonaws.com',
          [`${githubIssuer}:sub`]: `repo:${props.githubRepository}:ref:${props.githubRef ?? 'refs/heads/main'}`,
        },
      }),
      maxSessionDuration: Duration.hours(CI_SESSION_HOURS),
    });

    const ciStacks = stackNameForStage(ciStagePrefix);
    const bootstrapRole = (name: string) =>
      `arn:${this.partition}:iam::${this.account}:role/cdk-${qualifier}-${name}-role-${this.account}-${this.region}`;
    const ciStackArn = `arn:${this.partition}:cloudformation:${this.region}:${this.account}:stack/${ciStacks}*/*`;
    const cdkChangeSetArn = `arn:${this.partition}:cloudformation:${this.region}:${this.account}:changeSet/cdk-deploy-change-set/*`;
    const assetsBucket = `arn:${this.partition}:s3:::cdk-${qualifier}-assets-${this.account}-${this.region}/*`;
    const userPools = `arn:${this.partition}:cognito-idp:${this.region}:${this.account}:userpool/*`;
    const statements: iam.PolicyStatementProps[] = [
      {
        // The role calls CloudFormation itself, on CI stacks only, rather than through the bootstrap
        // deploy role, which may change any stack; `cdk` uses these credentials when it cannot assume
        // that role ("could not be used to assume …, but are for the right account. Proceeding anyway").
        sid: 'DeployCiStacksOnly',
        actions: [...ciStackActions],
        resources: [ciStackArn, cdkChangeSetArn],
      },
      {
        // CloudFormation creates and deletes a CI stack's resources with the bootstrap execution role.
        sid: 'PassExecutionRoleToCloudFormation',
        actions: ['iam:PassRole'],
        resources: [bootstrapRole('cfn-exec')],
        conditions: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
      },
      { sid: 'PublishAssets', actions: ['sts:AssumeRole'], resources: [bootstrapRole('file-publishing')] },
      {
        sid: 'ReadBootstrapVersion',
        actions: ['ssm:GetParameter', 'ssm:GetParameters'],
        resources: [
          `arn:${this.partition}:ssm:${this.region}:${this.account}:parameter/cdk-bootstrap/${qualifier}/version`,
        ],
      },
      {
        // CloudFormation reads a template given by URL with the caller's permissions.
        sid: 'ReadTemplatesFromStagingBucket',
        actions: ['s3:GetObject'],
        resources: [assetsBucket],
      },
      {
        sid: 'RegisterAdminKeyInCiStages',
        actions: [...adminKeyTableActions],
        resources: [`arn:${this.partition}:dynamodb:${this.region}:${this.account}:table/${ciStacks}*`],
      },
      {
        sid: 'FindStaleCiStages',
        actions: ['cloudformation:ListStacks', 'cognito-idp:ListUserPools'],
        resources: ['*'],
      },
      {
        // A pool an interrupted run left behind: only pools tagged as a CI stage's.
        sid: 'DeleteLeftoverCiUserPools',
        actions: ['cognito-idp:UpdateUserPool', 'cognito-idp:DeleteUserPool'],
        resources: [userPools],
        conditions: { StringLike: { [`aws:ResourceTag/${stageTagKey}`]: `${ciStagePrefix}*` } },
      },
    ];
    for (const statement of statements) this.deployRole.addToPrincipalPolicy(new iam.PolicyStatement(statement));
    Validations.of(this.deployRole).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/${ciStacks}*/*]`,
        reason:
          'CI stacks are named ModelGateway-ci-<run id> (and -fixtures), so the wildcard covers the stacks of CI stages and nothing else; the trailing /* is the stack id CloudFormation appends.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:changeSet/cdk-deploy-change-set/*]',
        reason:
          "The change set cdk creates for each deploy has this name and a generated id; creating or executing one also needs the CI stack's own ARN above, so no other stack can be changed.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-<AWS::AccountId>-<AWS::Region>/*]`,
        reason:
          "Read only, in the CDK staging bucket: CloudFormation fetches each template cdk uploaded there with the caller's permissions; object keys are content hashes.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/${ciStacks}*]`,
        reason:
          "CloudFormation names each CI stage's tables after its stack (ModelGateway-ci-<run id>-…), so the wildcard covers the tables of CI stages and nothing else; only GetItem and PutItem, for the stage's admin key.",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'cloudformation:ListStacks and cognito-idp:ListUserPools have no resource-level permission. They return names, statuses and creation times, which the scheduled clean-up needs to find CI stages and user pools left behind.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cognito-idp:<AWS::Region>:<AWS::AccountId>:userpool/*]',
        reason: `A user pool ARN carries only its generated id: the condition on the ${stageTagKey} tag limits the clean-up to the pools of CI stages.`,
      },
    );

    if (!props.existingApiGatewayLogRole) this.setApiGatewayLogRole();

    new CfnOutput(this, 'DeployRoleArn', {
      description: 'Set as the repository variable AWS_DEPLOY_ROLE_ARN',
      value: this.deployRole.roleArn,
    });
  }

  /** The role API Gateway writes every REST API's logs with, in this account and region. */
  private setApiGatewayLogRole(): void {
    const role = new iam.Role(this, 'ApiGatewayLogRole', {
      description: "API Gateway: writes access and execution logs of the account's REST APIs",
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [
        iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    // The account setting outlives this stack: a deleted role would silently stop every API's logs.
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    new apigateway.CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: role.roleArn });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level role for writing access and execution logs uses AWS's AmazonAPIGatewayPushToCloudWatchLogs policy, which exists for exactly this; the role is trusted only by apigateway.amazonaws.com.",
    });
  }
}
