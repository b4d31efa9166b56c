import { aws_ec2 as ec2, aws_lambda as lambda } from 'aws-cdk-lib';
import { Construct } from 'constructs';

/** `-c compute=…`: where the relaying functions run. */
export type ComputeKind = 'lambda' | 'managed-instances';

export const computeKindFrom = (value: unknown): ComputeKind => {
  if (value === undefined || value === null || value === '' || value === 'lambda') return 'lambda';
  if (value === 'managed-instances') return 'managed-instances';
  throw new Error(`-c compute=${String(value)}: expected 'lambda' (the default) or 'managed-instances'.`);
};

export interface ManagedInstancesProps {
  /** The functions that relay to upstreams: they spend nearly all their time waiting on the network. */
  readonly functions: readonly lambda.Function[];
  /** Invocations one execution environment serves at once. */
  readonly maxConcurrencyPerEnvironment?: number;
}

/**
 * The relaying functions on Lambda Managed Instances: a capacity provider in its own VPC (private
 * subnets, one NAT gateway for the calls to upstreams and AWS APIs), one execution environment
 * serving many invocations at once. A stream that waits ten seconds on its upstream then costs a
 * share of an instance instead of ten billed seconds of a whole environment. The handlers keep no
 * per-request state at module level, which is what makes sharing a process safe.
 */
export class ManagedInstances extends Construct {
  readonly capacityProvider: lambda.CapacityProvider;
  readonly vpc: ec2.Vpc;

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
    // Outbound only: nothing connects to the instances; they call upstreams, DynamoDB and Secrets Manager.
    const securityGroup = new ec2.SecurityGroup(this, 'InstancesSecurityGroup', {
      vpc: this.vpc,
      description: 'model-gateway managed instances: outbound only',
      allowAllOutbound: true,
    });
    this.capacityProvider = new lambda.CapacityProvider(this, 'CapacityProvider', {
      subnets: this.vpc.privateSubnets,
      securityGroups: [securityGroup],
      architectures: [lambda.Architecture.ARM_64],
    });
    for (const handler of props.functions) {
      // An environment's memory is shared by its concurrent invocations; 2 GB is the smallest it takes.
      (handler.node.defaultChild as lambda.CfnFunction).memorySize = 2048;
      // 700, from `npm run bench:instances`: 1,000 streams in flight in one 2 GB, one-vCPU environment
      // cost 35.5 µs of CPU per chunk and 2.7 ms per invocation, so a 10-second stream at 20 chunks/s
      // takes 0.98 ms of CPU a second: 716 such streams fill 70 % of the vCPU. Memory allows far more
      // (69 KB per in-flight stream, 389 MB at the peak of 1,000 starting within 5 s).
      this.capacityProvider.addFunction(handler, {
        perExecutionEnvironmentMaxConcurrency: props.maxConcurrencyPerEnvironment ?? 700,
      });
    }
  }
}
