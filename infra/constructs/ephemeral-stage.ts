import path from 'node:path';
import {
  Aspects,
  CfnResource,
  CustomResource,
  Duration,
  type IAspect,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { lambdaNodeTarget, projectRoot } from '../build/esbuild-options.js';

export interface EphemeralStageProps {
  /** The folder of the upstream key secrets the admin function creates (`model-gateway/<stack>/channels`). */
  readonly upstreamSecretPrefix: string;
}

/** What holds data or costs money while it exists: deleted with an ephemeral stack, whatever its default. */
const destroyedTypes: ReadonlySet<string> = new Set([
  'AWS::DynamoDB::GlobalTable',
  'AWS::DynamoDB::Table',
  'AWS::Logs::LogGroup',
  'AWS::SQS::Queue',
]);

class DestroyWithStack implements IAspect {
  visit(node: IConstruct): void {
    if (node instanceof CfnResource && destroyedTypes.has(node.cfnResourceType))
      node.applyRemovalPolicy(RemovalPolicy.DESTROY);
  }
}

/**
 * Makes a stack leave nothing behind on `cdk destroy` (CI stages, `-c ephemeral=true`): its tables,
 * log groups and queues are deleted rather than retained, and a custom resource force-deletes, when
 * the stack is deleted, the upstream key secrets the admin function created at run time, which
 * CloudFormation does not know about.
 */
export class EphemeralStage extends Construct {
  readonly secretsCleanup: CustomResource;

  constructor(scope: Construct, id: string, props: EphemeralStageProps) {
    super(scope, id);
    const stack = Stack.of(this);
    Aspects.of(stack).add(new DestroyWithStack());

    const logGroup = new logs.LogGroup(this, 'SecretsCleanupLogs', { retention: logs.RetentionDays.ONE_WEEK });
    const role = new iam.Role(this, 'SecretsCleanupRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: "model-gateway: deletes the stage's upstream key secrets when the stage is destroyed",
    });
    logGroup.grantWrite(role);
    const secrets = `arn:${stack.partition}:secretsmanager:${stack.region}:${stack.account}:secret:${props.upstreamSecretPrefix}/*`;
    // ListSecrets has no resource-level permission: it is granted on "*" or not at all.
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:ListSecrets'], resources: ['*'] }));
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:DeleteSecret'], resources: [secrets] }),
    );
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "secretsmanager:ListSecrets supports no resource-level permission; the function lists by name filter and deletes only under the stage's own prefix, which its DeleteSecret grant enforces.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${props.upstreamSecretPrefix}/*]`,
        reason:
          "Deletes the upstream key secrets of this stage only: one per channel under the stage's prefix, named by channel id with a suffix Secrets Manager chooses.",
      },
    );

    const cleanup = new nodejs.NodejsFunction(this, 'SecretsCleanupFunction', {
      description: "model-gateway: deletes the stage's upstream key secrets on stack deletion",
      entry: path.join(projectRoot, 'infra', 'stage-cleanup', 'handler.ts'),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.minutes(5),
      role,
      logGroup,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: lambdaNodeTarget,
        minify: true,
        // The runtime's own AWS SDK: the function runs once per stage, size does not matter.
        externalModules: ['@aws-sdk/*'],
        forceDockerBundling: false,
      },
    });

    this.secretsCleanup = new CustomResource(this, 'SecretsCleanup', {
      serviceToken: cleanup.functionArn,
      resourceType: 'Custom::StageSecretsCleanup',
      properties: { SecretPrefix: props.upstreamSecretPrefix },
    });
    // Deleted before its function, role and policy, so it still has them when it runs.
    this.secretsCleanup.node.addDependency(role, logGroup);
  }
}
