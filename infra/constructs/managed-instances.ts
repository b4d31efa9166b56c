import { aws_ec2 as ec2, aws_lambda as lambda, aws_logs as logs, Validations } from 'aws-cdk-lib';
import { Construct } from 'constructs';

/** `-c compute=…`: where the relaying functions run. */
export type ComputeKind = 'lambda' | 'managed-instances';

export interface ManagedInstancesProps {
  /** The functions that relay to upstreams: they spend nearly all their time waiting on the network. */
  readonly functions: readonly lambda.Function[];
  /** Invocations one execution environment serves at once. */
  readonly maxConcurrencyPerEnvironment?: number;
  /** How long the capacity provider's own logs are kept. */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Execution environments each function keeps running while idle. Lambda's default is 3 (one per
 * Availability Zone), which for four functions is 12 environments billed all month whatever the
 * traffic. One environment serves many invocations at once, so one per function holds the load a
 * quiet stage sees, and Lambda adds environments as concurrency grows.
 */
export const MIN_EXECUTION_ENVIRONMENTS = 1;

/** Memory of one environment, shared by its concurrent invocations: 2 GB is the smallest it takes. */
export const ENVIRONMENT_MEMORY_MB = 2048;

/**
 * The relaying functions on Lambda Managed Instances: a capacity provider in its own VPC (private
 * subnets, one NAT gateway for the calls to upstreams and AWS APIs, a gateway endpoint that keeps
 * DynamoDB traffic off the NAT), one execution environment serving many invocations at once. A
 * stream that waits ten seconds on its upstream then costs a share of an instance instead of ten
 * billed seconds of a whole environment. The handlers keep no per-request state at module level,
 * which is what makes sharing a process safe.
 */
export class ManagedInstances extends Construct {
  readonly capacityProvider: lambda.CapacityProvider;
  readonly vpc: ec2.Vpc;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ManagedInstancesProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'instances', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
    });
    // Every request reads and writes DynamoDB: through a gateway endpoint that costs nothing, rather
    // than through the NAT gateway, which bills each gigabyte.
    this.vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });
    Validations.of(this.vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason:
        'The VPC holds only the managed instances, which accept no inbound connection (their security group has no ingress rule) and call upstreams, DynamoDB and Secrets Manager; every request is already in the access log and the request log. Flow logs would bill per gigabyte for every streamed token.',
    });
    // Outbound only: nothing connects to the instances; they call upstreams, DynamoDB and Secrets Manager.
    const securityGroup = new ec2.SecurityGroup(this, 'InstancesSecurityGroup', {
      vpc: this.vpc,
      description: 'model-gateway managed instances: outbound only',
      allowAllOutbound: true,
    });
    // Created here so that it has a retention; the service would make one that keeps logs forever.
    this.logGroup = new logs.LogGroup(this, 'CapacityProviderLogs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    this.capacityProvider = new lambda.CapacityProvider(this, 'CapacityProvider', {
      subnets: this.vpc.privateSubnets,
      securityGroups: [securityGroup],
      architectures: [lambda.Architecture.ARM_64],
      logGroup: this.logGroup,
    });
    const operatorRole = this.capacityProvider.node.tryFindChild('OperatorRole');
    if (operatorRole) {
      Validations.of(operatorRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]',
        reason:
          "Lambda assumes this role to launch and stop the capacity provider's EC2 instances; AWS's AWSLambdaManagedEC2ResourceOperator policy is made for exactly this and is kept current by AWS as the service changes.",
      });
    }
    for (const handler of props.functions) {
      (handler.node.defaultChild as lambda.CfnFunction).memorySize = ENVIRONMENT_MEMORY_MB;
      // 790, from `npm run bench:instances` (docs/cost.md): 1,000 streams in flight in one 2 GB,
      // one-vCPU environment cost 33.4 µs of CPU per chunk and 2.15 ms per invocation, so a 10-second
      // stream at 20 chunks/s takes 0.88 ms of CPU a second: 792 such streams fill 70 % of the vCPU.
      // Memory allows far more (153 KB per in-flight stream, 426 MB at the peak of 1,000 starting).
      this.capacityProvider.addFunction(handler, {
        perExecutionEnvironmentMaxConcurrency: props.maxConcurrencyPerEnvironment ?? 790,
        // Said outright: each deploy publishes the new code to $LATEST.PUBLISHED, which is what runs.
        publishToLatestPublished: true,
        latestPublishedScalingConfig: { minExecutionEnvironments: MIN_EXECUTION_ENVIRONMENTS },
      });
    }
  }
}
