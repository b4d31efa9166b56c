import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ciStagePrefix, stackNameForStage } from '../stage.js';

/**
 * The one-time setup of an AWS account for the CI workflows (docs/ci.md): GitHub's OIDC provider and
 * a deploy role that only the repository's main branch can assume, with no long-lived key. The role
 * can do four things, each for CI stages only:
 * - deploy and destroy them, by assuming the CDK bootstrap roles (which CloudFormation acts through);
 * - register an admin key in a CI stage's tables (`npm run admin-key`);
 * - list stacks, to find the CI stages a run left behind.
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
    });

    const ciStacks = stackNameForStage(ciStagePrefix);
    this.deployRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DeployThroughCdkBootstrapRoles',
        actions: ['sts:AssumeRole'],
        resources: ['deploy', 'file-publishing'].map(
          (role) =>
            `arn:${this.partition}:iam::${this.account}:role/cdk-${qualifier}-${role}-role-${this.account}-${this.region}`,
        ),
      }),
    );
    this.deployRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RegisterAdminKeyInCiStages',
        actions: [...adminKeyTableActions],
        resources: [`arn:${this.partition}:dynamodb:${this.region}:${this.account}:table/${ciStacks}*`],
      }),
    );
    this.deployRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'FindStaleCiStages', actions: ['cloudformation:ListStacks'], resources: ['*'] }),
    );
    Validations.of(this.deployRole).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/${ciStacks}*]`,
        reason:
          "CloudFormation names each CI stage's tables after its stack (ModelGateway-ci-<run id>-…), so the wildcard covers the tables of CI stages and nothing else; only GetItem and PutItem, for the stage's admin key.",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'cloudformation:ListStacks has no resource-level permission. It returns stack names, statuses and creation times, which the scheduled clean-up needs to find CI stages left behind.',
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
