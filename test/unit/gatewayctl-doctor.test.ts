import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
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
import { mockClient } from 'aws-sdk-client-mock';
import { bedrockModelsOf, doctorCommand } from '../../cli/doctor-command.js';
import { doctorChecks, doctorClients, runDoctor, type DoctorOptions } from '../../cli/doctor-checks.js';
import { projectRoot } from '../../infra/build/esbuild-options.js';

/**
 * `gatewayctl doctor`, against recorded AWS answers (aws-sdk-client-mock), never a live account: each
 * check passes on a ready account, fails with its fix on the answer that would break the deploy, and
 * is unknown when AWS refuses to say.
 */

const sts = mockClient(STSClient);
const ssm = mockClient(SSMClient);
const lambda = mockClient(LambdaClient);
const apiGateway = mockClient(APIGatewayClient);
const bedrock = mockClient(BedrockClient);
const quotas = mockClient(ServiceQuotasClient);

const awsError = (name: string, message = name) => Object.assign(new Error(message), { name, $metadata: {} });

const options = (overrides: Partial<DoctorOptions> = {}): DoctorOptions => ({
  region: 'eu-west-1',
  stage: 'prod',
  compute: 'lambda',
  reservedConcurrency: 0,
  bedrockModels: [],
  qualifier: 'hnb659fds',
  ...overrides,
});

/** A new account that can take the stack with every option. */
const readyAccount = () => {
  for (const mock of [sts, ssm, lambda, apiGateway, bedrock, quotas]) mock.reset();
  sts.on(GetCallerIdentityCommand).resolves({ Account: '111122223333', Arn: 'arn:aws:iam::111122223333:user/ops' });
  ssm
    .on(GetParameterCommand, { Name: '/cdk-bootstrap/hnb659fds/version' })
    .resolves({ Parameter: { Name: '/cdk-bootstrap/hnb659fds/version', Value: '29' } });
  lambda.on(ListLayersCommand).resolves({ Layers: [] });
  lambda.on(ListCapacityProvidersCommand).resolves({ CapacityProviders: [] });
  lambda
    .on(GetAccountSettingsCommand)
    .resolves({ AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } });
  apiGateway.on(GetAccountCommand).resolves({ cloudwatchRoleArn: 'arn:aws:iam::111122223333:role/apigw-logs' });
  bedrock.on(GetFoundationModelAvailabilityCommand).resolves({
    modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    agreementAvailability: { status: 'AVAILABLE' },
    authorizationStatus: 'AUTHORIZED',
    entitlementAvailability: 'AVAILABLE',
    regionAvailability: 'AVAILABLE',
  });
  quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 64 } });
};

const clients = () => doctorClients('eu-west-1');
const statusOf = async (name: string, given: DoctorOptions) =>
  (await runDoctor(clients(), given)).find((result) => result.name === name);

const everyOption = options({
  compute: 'managed-instances',
  reservedConcurrency: 5,
  bedrockModels: ['us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
});

beforeEach(readyAccount);

it('passes every check on a ready account, each option included', async () => {
  const results = await runDoctor(clients(), everyOption);
  expect(results.map((result) => [result.name, result.status])).toEqual(
    doctorChecks.map((check) => [check.name, 'pass']),
  );
  // The inference profile's foundation model is what Bedrock is asked about.
  expect(bedrock.commandCalls(GetFoundationModelAvailabilityCommand)[0]!.args[0].input).toEqual({
    modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  });
});

it('runs only the checks the options call for', async () => {
  const names = (await runDoctor(clients(), options())).map((result) => result.name);
  expect(names).not.toContain('managed-instances');
  expect(names).not.toContain('ec2-vcpu-quota');
  expect(names).not.toContain('bedrock-models');
  expect(quotas.calls()).toHaveLength(0);
});

/** Each check's failing answer, and the words its fix must carry. */
const failures: [string, () => void, DoctorOptions, RegExp][] = [
  [
    'credentials',
    () => sts.on(GetCallerIdentityCommand).rejects(awsError('CredentialsProviderError')),
    options(),
    /aws sso login|AWS_PROFILE/,
  ],
  [
    'cdk-bootstrap',
    () => ssm.on(GetParameterCommand).rejects(awsError('ParameterNotFound')),
    options(),
    /cdk bootstrap/,
  ],
  [
    'cdk-bootstrap',
    () => ssm.on(GetParameterCommand).resolves({ Parameter: { Value: '4' } }),
    options(),
    /cdk bootstrap/,
  ],
  [
    'lambda-runtime',
    () =>
      lambda
        .on(ListLayersCommand)
        .rejects(awsError('InvalidParameterValueException', 'Value nodejs24.x at compatibleRuntime')),
    options(),
    /region that offers nodejs24\.x/,
  ],
  [
    'managed-instances',
    () => lambda.on(ListCapacityProvidersCommand).rejects(awsError('UnknownOperationException')),
    options({ compute: 'managed-instances' }),
    /-c compute=lambda/,
  ],
  [
    'lambda-concurrency',
    () =>
      lambda
        .on(GetAccountSettingsCommand)
        .resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } }),
    options({ reservedConcurrency: 2 }),
    /without -c adminReservedConcurrency|Service Quotas/,
  ],
  [
    'api-gateway-log-role',
    () => apiGateway.on(GetAccountCommand).resolves({}),
    options({ stage: 'ci-77' }),
    /update-account|ci-setup/,
  ],
  [
    'bedrock-models',
    () =>
      bedrock.on(GetFoundationModelAvailabilityCommand).resolves({
        agreementAvailability: { status: 'NOT_AVAILABLE' },
        authorizationStatus: 'AUTHORIZED',
        regionAvailability: 'AVAILABLE',
      }),
    options({ bedrockModels: ['anthropic.claude-3-haiku-20240307-v1:0'] }),
    /use-case form/,
  ],
  [
    'ec2-vcpu-quota',
    () => quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 0 } }),
    options({ compute: 'managed-instances' }),
    /L-1216C47A/,
  ],
];

it.each(failures)(
  'fails %s on the answer that would break the deploy, with its fix',
  async (name, breakIt, given, fix) => {
    breakIt();
    const result = await statusOf(name, given);
    expect(result?.status).toBe('fail');
    expect(result?.fix).toMatch(fix);
  },
);

it('has a failing case for every check', () => {
  expect(new Set(failures.map(([name]) => name))).toEqual(new Set(doctorChecks.map((check) => check.name)));
});

it('says unknown, never pass, when AWS refuses to answer', async () => {
  const denied = awsError('AccessDeniedException');
  ssm.on(GetParameterCommand).rejects(denied);
  lambda.on(GetAccountSettingsCommand).rejects(denied);
  quotas.on(GetServiceQuotaCommand).rejects(denied);
  const results = await runDoctor(clients(), options({ compute: 'managed-instances' }));
  const unknown = results.filter((result) => result.status === 'unknown').map((result) => result.name);
  expect(unknown.sort()).toEqual(['cdk-bootstrap', 'ec2-vcpu-quota', 'lambda-concurrency']);
  for (const result of results.filter((entry) => entry.status === 'unknown')) expect(result.fix).toBeTruthy();
});

it('a kept stage passes without the log role (it sets it); an ephemeral stage does not', async () => {
  apiGateway.on(GetAccountCommand).resolves({});
  expect((await statusOf('api-gateway-log-role', options()))?.status).toBe('pass');
  expect((await statusOf('api-gateway-log-role', options({ stage: 'ci-1' })))?.status).toBe('fail');
});

it('checks nothing else without credentials, and says so', async () => {
  sts.on(GetCallerIdentityCommand).rejects(awsError('ExpiredToken'));
  const results = await runDoctor(clients(), options());
  expect(results.slice(1).map((result) => result.status)).toEqual(results.slice(1).map(() => 'unknown'));
  expect(lambda.calls()).toHaveLength(0);
});

it('makes only read-only calls', async () => {
  await runDoctor(clients(), everyOption);
  const calls = [sts, ssm, lambda, apiGateway, bedrock, quotas].flatMap((mock) =>
    mock.calls().map((call) => (call.args[0] as { constructor: { name: string } }).constructor.name),
  );
  expect(calls.length).toBeGreaterThanOrEqual(doctorChecks.length);
  for (const name of calls) expect(name).toMatch(/^(Get|List)/);
});

it('prints each check with its fix and reports whether any failed', async () => {
  lambda.on(ListLayersCommand).rejects(awsError('InvalidParameterValueException'));
  const lines: string[] = [];
  expect(await doctorCommand(clients(), options(), (line) => lines.push(line))).toBe(false);
  expect(lines.join('\n')).toMatch(/^FAIL {4}lambda-runtime: .*\n {8}fix: /m);
  expect(lines.join('\n')).toMatch(/^PASS {4}credentials: account 111122223333/m);
});

it("reads the Bedrock models from the config's bedrock channels, mapped ids included", () => {
  expect(
    bedrockModelsOf({
      channels: [
        { id: 'openai', type: 'openai', models: ['gpt-4o'] },
        {
          id: 'bedrock',
          type: 'bedrock',
          models: ['claude', 'amazon.nova-lite-v1:0'],
          modelMap: { claude: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        },
      ],
    }),
  ).toEqual(['amazon.nova-lite-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0']);
});

it('documents every check in gatewayctl doctor --help, without credentials or an admin key', async () => {
  const { stdout } = await promisify(execFile)(
    path.join(projectRoot, 'node_modules', '.bin', 'node'),
    [path.join(projectRoot, 'bin', 'gatewayctl.js'), 'doctor', '--help'],
    { cwd: projectRoot, env: { PATH: process.env.PATH } },
  );
  for (const check of doctorChecks) expect(stdout).toContain(`  ${check.name} `);
  expect(stdout).toMatch(/pass, fail or unknown/);
}, 60_000);
