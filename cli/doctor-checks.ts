import { APIGatewayClient, GetAccountCommand } from '@aws-sdk/client-api-gateway';
import { BedrockClient, GetFoundationModelAvailabilityCommand } from '@aws-sdk/client-bedrock';
import {
  GetAccountSettingsCommand,
  LambdaClient,
  ListCapacityProvidersCommand,
  ListLayersCommand,
} from '@aws-sdk/client-lambda';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/**
 * What `gatewayctl doctor` checks before a deploy, each with read-only AWS calls made with the
 * caller's own credentials. A check passes, fails (with the fix), or is unknown when AWS would not
 * say (no permission, a network error): unknown is never taken for a pass.
 */
export type CheckStatus = 'pass' | 'fail' | 'unknown';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  /** What to do about a failure or an unknown. */
  readonly fix?: string;
}

export interface DoctorOptions {
  readonly region: string;
  readonly stage: string;
  readonly compute: 'lambda' | 'managed-instances';
  /** `-c adminReservedConcurrency`: executions the stage would reserve. */
  readonly reservedConcurrency: number;
  /** Bedrock model or inference profile ids the configuration calls. */
  readonly bedrockModels: readonly string[];
  /** The CDK bootstrap qualifier. */
  readonly qualifier: string;
}

export interface DoctorClients {
  readonly sts: STSClient;
  readonly ssm: SSMClient;
  readonly lambda: LambdaClient;
  readonly apiGateway: APIGatewayClient;
  readonly bedrock: BedrockClient;
  readonly serviceQuotas: ServiceQuotasClient;
}

export interface DoctorCheck {
  readonly name: string;
  /** One line for `--help`: what it checks. */
  readonly description: string;
  readonly appliesTo: (options: DoctorOptions) => boolean;
  readonly run: (clients: DoctorClients, options: DoctorOptions) => Promise<CheckResult>;
}

/** The bootstrap version the CDK's default synthesizer asks for. */
export const REQUIRED_BOOTSTRAP_VERSION = 6;
/** The stack's runtime. */
export const RUNTIME = 'nodejs24.x';
/** Lambda keeps this many executions of a region's pool unreserved. */
const MINIMUM_UNRESERVED = 100;
/** Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances, in vCPUs. */
export const STANDARD_VCPU_QUOTA_CODE = 'L-1216C47A';
/** vCPUs the managed instances start with: one environment of 2 GB (1 vCPU) for each of 4 functions. */
export const MANAGED_INSTANCES_VCPUS = 4;

const unknownFrom = (name: string, error: unknown, fix: string): CheckResult => ({
  name,
  status: 'unknown',
  detail: `AWS did not say (${(error as Error).name ?? 'Error'}: ${(error as Error).message ?? ''})`,
  fix,
});

const isDenied = (error: unknown) =>
  /AccessDenied|UnauthorizedOperation|NotAuthorized/i.test((error as Error).name ?? '');

const isEphemeral = (stage: string) => stage.startsWith('ci-');

/** A cross-region inference profile id (`us.anthropic…`) names its foundation model after the prefix. */
const foundationModelOf = (id: string) => id.replace(/^(?:us|us-gov|eu|apac|jp|au|ca|global)\./, '');

export const doctorChecks: readonly DoctorCheck[] = [
  {
    name: 'credentials',
    description: 'AWS credentials are found and valid (sts:GetCallerIdentity); names the account and identity.',
    appliesTo: () => true,
    run: async ({ sts }) => {
      try {
        const identity = await sts.send(new GetCallerIdentityCommand({}));
        return { name: 'credentials', status: 'pass', detail: `account ${identity.Account}, ${identity.Arn}` };
      } catch (error) {
        return {
          name: 'credentials',
          status: 'fail',
          detail: `no usable AWS credentials (${(error as Error).name})`,
          fix: 'Sign in (aws sso login, aws configure) or set AWS_PROFILE, then run the preflight again.',
        };
      }
    },
  },
  {
    name: 'cdk-bootstrap',
    description: `The account and region are bootstrapped for the CDK, version ${REQUIRED_BOOTSTRAP_VERSION} or newer (the /cdk-bootstrap/<qualifier>/version parameter).`,
    appliesTo: () => true,
    run: async ({ ssm }, { qualifier, region }) => {
      const name = 'cdk-bootstrap';
      const fix = `npx cdk bootstrap (in ${region})`;
      try {
        const answer = await ssm.send(new GetParameterCommand({ Name: `/cdk-bootstrap/${qualifier}/version` }));
        const version = Number(answer.Parameter?.Value);
        return version >= REQUIRED_BOOTSTRAP_VERSION
          ? { name, status: 'pass', detail: `bootstrap version ${version}` }
          : { name, status: 'fail', detail: `bootstrap version ${version} is too old`, fix };
      } catch (error) {
        if ((error as Error).name === 'ParameterNotFound')
          return { name, status: 'fail', detail: `${region} is not bootstrapped for the CDK`, fix };
        return unknownFrom(
          name,
          error,
          `Allow ssm:GetParameter on /cdk-bootstrap/${qualifier}/version, or check that ${fix} was run.`,
        );
      }
    },
  },
  {
    name: 'lambda-runtime',
    description: `Lambda offers the ${RUNTIME} runtime in the region (lambda:ListLayers for that runtime, which the region refuses if it does not know it).`,
    appliesTo: () => true,
    run: async ({ lambda }, { region }) => {
      const name = 'lambda-runtime';
      try {
        await lambda.send(new ListLayersCommand({ CompatibleRuntime: RUNTIME, MaxItems: 1 }));
        return { name, status: 'pass', detail: `${RUNTIME} is offered in ${region}` };
      } catch (error) {
        if (
          (error as Error).name === 'InvalidParameterValueException' ||
          (error as Error).name === 'ValidationException'
        )
          return {
            name,
            status: 'fail',
            detail: `${region} does not offer ${RUNTIME}`,
            fix: `Deploy to a region that offers ${RUNTIME} (set AWS_REGION).`,
          };
        return unknownFrom(name, error, 'Allow lambda:ListLayers, or check the Lambda runtimes page for the region.');
      }
    },
  },
  {
    name: 'managed-instances',
    description:
      'With -c compute=managed-instances: Lambda Managed Instances is offered in the region (lambda:ListCapacityProviders).',
    appliesTo: ({ compute }) => compute === 'managed-instances',
    run: async ({ lambda }, { region }) => {
      const name = 'managed-instances';
      try {
        await lambda.send(new ListCapacityProvidersCommand({ MaxItems: 1 }));
        return { name, status: 'pass', detail: `Lambda Managed Instances is offered in ${region}` };
      } catch (error) {
        if (isDenied(error)) return unknownFrom(name, error, 'Allow lambda:ListCapacityProviders.');
        return {
          name,
          status: 'fail',
          detail: `${region} did not answer for Lambda Managed Instances (${(error as Error).name})`,
          fix: 'Deploy with -c compute=lambda, or to a region that offers Lambda Managed Instances.',
        };
      }
    },
  },
  {
    name: 'lambda-concurrency',
    description: `The region's unreserved Lambda concurrency leaves ${MINIMUM_UNRESERVED} after -c adminReservedConcurrency (lambda:GetAccountSettings).`,
    appliesTo: () => true,
    run: async ({ lambda }, { reservedConcurrency }) => {
      const name = 'lambda-concurrency';
      try {
        const settings = await lambda.send(new GetAccountSettingsCommand({}));
        const total = settings.AccountLimit?.ConcurrentExecutions ?? 0;
        const unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions ?? 0;
        if (reservedConcurrency > 0 && unreserved - reservedConcurrency < MINIMUM_UNRESERVED)
          return {
            name,
            status: 'fail',
            detail: `reserving ${reservedConcurrency} would leave ${unreserved - reservedConcurrency} of ${total} unreserved; Lambda keeps ${MINIMUM_UNRESERVED}`,
            fix: 'Deploy without -c adminReservedConcurrency, or ask for more concurrent executions in Service Quotas (Lambda, "Concurrent executions").',
          };
        return {
          name,
          status: 'pass',
          detail: `${unreserved} of ${total} concurrent executions unreserved${total < 1000 ? ' (ask Service Quotas for 1,000 before real traffic)' : ''}`,
        };
      } catch (error) {
        return unknownFrom(
          name,
          error,
          'Allow lambda:GetAccountSettings, or read the Lambda console account settings.',
        );
      }
    },
  },
  {
    name: 'api-gateway-log-role',
    description:
      "API Gateway's account-level CloudWatch role is set, which the stage's logs need (apigateway:GET /account); kept stages set it themselves.",
    appliesTo: () => true,
    run: async ({ apiGateway }, { stage }) => {
      const name = 'api-gateway-log-role';
      try {
        const account = await apiGateway.send(new GetAccountCommand({}));
        if (account.cloudwatchRoleArn) return { name, status: 'pass', detail: `set: ${account.cloudwatchRoleArn}` };
        if (!isEphemeral(stage)) return { name, status: 'pass', detail: 'not set yet; this stage sets it' };
        return {
          name,
          status: 'fail',
          detail: 'not set, and an ephemeral stage does not set it',
          fix: 'Deploy a kept stage once, or the CI setup (infra/ci-setup), or: aws apigateway update-account --patch-operations op=replace,path=/cloudwatchRoleArn,value=<role ARN>',
        };
      } catch (error) {
        return unknownFrom(name, error, 'Allow apigateway:GET on /account.');
      }
    },
  },
  {
    name: 'bedrock-models',
    description:
      'Each Bedrock model of the configuration (--config) is offered in the region and this account may use it (bedrock:GetFoundationModelAvailability).',
    appliesTo: ({ bedrockModels }) => bedrockModels.length > 0,
    run: async ({ bedrock }, { bedrockModels }) => {
      const name = 'bedrock-models';
      const problems: string[] = [];
      try {
        for (const id of bedrockModels) {
          const availability = await bedrock.send(
            new GetFoundationModelAvailabilityCommand({ modelId: foundationModelOf(id) }),
          );
          if (availability.regionAvailability !== 'AVAILABLE') problems.push(`${id}: not offered in this region`);
          else if (availability.authorizationStatus !== 'AUTHORIZED')
            problems.push(`${id}: not authorized (an IAM or organization policy denies it)`);
          else if (availability.agreementAvailability?.status !== 'AVAILABLE')
            problems.push(
              `${id}: no agreement yet (subscribed at first use; Anthropic models ask for the use-case form once)`,
            );
        }
      } catch (error) {
        return unknownFrom(
          name,
          error,
          'Allow bedrock:GetFoundationModelAvailability, or invoke each model once in the Bedrock console.',
        );
      }
      return problems.length === 0
        ? { name, status: 'pass', detail: `${bedrockModels.length} model(s) ready` }
        : {
            name,
            status: 'fail',
            detail: problems.join('; '),
            fix: 'Open each model in the Bedrock console model catalog of this region (submit the Anthropic use-case form if asked); the chat role has the AWS Marketplace permissions the first use needs.',
          };
    },
  },
  {
    name: 'ec2-vcpu-quota',
    description: `With -c compute=managed-instances: the EC2 quota of on-demand standard vCPUs (${STANDARD_VCPU_QUOTA_CODE}) holds the ${MANAGED_INSTANCES_VCPUS} vCPUs the instances start with (servicequotas:GetServiceQuota).`,
    appliesTo: ({ compute }) => compute === 'managed-instances',
    run: async ({ serviceQuotas }) => {
      const name = 'ec2-vcpu-quota';
      try {
        const quota = await serviceQuotas.send(
          new GetServiceQuotaCommand({ ServiceCode: 'ec2', QuotaCode: STANDARD_VCPU_QUOTA_CODE }),
        );
        const value = quota.Quota?.Value ?? 0;
        return value >= MANAGED_INSTANCES_VCPUS
          ? { name, status: 'pass', detail: `${value} vCPUs allowed` }
          : {
              name,
              status: 'fail',
              detail: `${value} vCPUs allowed, the instances need ${MANAGED_INSTANCES_VCPUS}`,
              fix: `Ask for more in Service Quotas (EC2, quota ${STANDARD_VCPU_QUOTA_CODE}), or deploy with -c compute=lambda.`,
            };
      } catch (error) {
        return unknownFrom(
          name,
          error,
          'Allow servicequotas:GetServiceQuota, or read the quota in the Service Quotas console.',
        );
      }
    },
  },
];

/** Runs every check that applies, in order; without credentials the others cannot say anything. */
export const runDoctor = async (clients: DoctorClients, options: DoctorOptions): Promise<CheckResult[]> => {
  const results: CheckResult[] = [];
  for (const check of doctorChecks.filter((candidate) => candidate.appliesTo(options))) {
    if (check.name !== 'credentials' && results[0]?.status === 'fail') {
      results.push({
        name: check.name,
        status: 'unknown',
        detail: 'not checked without credentials',
        fix: results[0].fix,
      });
      continue;
    }
    results.push(await check.run(clients, options));
  }
  return results;
};

export const doctorClients = (region: string): DoctorClients => ({
  sts: new STSClient({ region }),
  ssm: new SSMClient({ region }),
  lambda: new LambdaClient({ region }),
  apiGateway: new APIGatewayClient({ region }),
  bedrock: new BedrockClient({ region }),
  serviceQuotas: new ServiceQuotasClient({ region }),
});
