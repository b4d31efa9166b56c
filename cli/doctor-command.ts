import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { CliError } from './admin-client.js';
import { doctorChecks, runDoctor, type CheckResult, type DoctorClients, type DoctorOptions } from './doctor-checks.js';

export const DOCTOR_USAGE = `gatewayctl doctor: before a deploy, check that this AWS account and region can take the stack

Usage: gatewayctl doctor [--stage S] [--compute lambda|managed-instances] [--admin-reserved-concurrency N]
                         [--config gateway.yaml] [--region R] [--qualifier Q]
       npm run preflight -- [the same options]

Read-only AWS calls with your own credentials (AWS_PROFILE, AWS_REGION as for cdk deploy). Give the
options you will deploy with. Each check prints pass, fail or unknown, with the fix; the exit code is 1
when a check fails.

Checks:
${doctorChecks.map((check) => `  ${check.name.padEnd(22)}${check.description}`).join('\n')}

Options:
  --stage S                       the stage (-c stage), prod by default; ci-* stages are ephemeral
  --compute K                     -c compute: lambda (default) or managed-instances
  --admin-reserved-concurrency N  -c adminReservedConcurrency, none by default
  --config FILE                   the gateway config to apply: its bedrock channels' models are checked
  --region R                      the region (AWS_REGION or AWS_DEFAULT_REGION by default)
  --qualifier Q                   the CDK bootstrap qualifier, hnb659fds by default
`;

/** The Bedrock model ids a config file's `bedrock` channels call: their upstream ids where mapped. */
export const bedrockModelsOf = (config: unknown): string[] => {
  const channels = (config as { channels?: unknown } | null)?.channels;
  const list = Array.isArray(channels) ? channels : Object.values((channels as Record<string, unknown>) ?? {});
  const ids = new Set<string>();
  for (const channel of list as { type?: string; models?: unknown; modelMap?: Record<string, unknown> }[]) {
    if (channel?.type !== 'bedrock') continue;
    const mapped = channel.modelMap ?? {};
    for (const model of Array.isArray(channel.models) ? (channel.models as string[]) : [])
      ids.add(typeof mapped[model] === 'string' ? (mapped[model] as string) : model);
    for (const upstream of Object.values(mapped)) if (typeof upstream === 'string') ids.add(upstream);
  }
  return [...ids].sort();
};

const text = (options: Record<string, string | boolean | undefined>, name: string) => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};

export const doctorOptionsFrom = async (
  options: Record<string, string | boolean | undefined>,
  environment: NodeJS.ProcessEnv,
): Promise<DoctorOptions> => {
  const region = text(options, 'region') ?? environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION;
  if (!region) throw new CliError('No region: pass --region or set AWS_REGION, as for cdk deploy.', 2);
  const compute = text(options, 'compute') ?? 'lambda';
  if (compute !== 'lambda' && compute !== 'managed-instances')
    throw new CliError(`--compute takes lambda or managed-instances, not '${compute}'.`, 2);
  const reserved = Number(text(options, 'admin-reserved-concurrency') ?? 0);
  if (!Number.isInteger(reserved) || reserved < 0)
    throw new CliError('--admin-reserved-concurrency takes a whole number, 0 or more.', 2);
  const configFile = text(options, 'config');
  const bedrockModels = configFile ? bedrockModelsOf(parse(await readFile(configFile, 'utf8'))) : [];
  return {
    region,
    stage: text(options, 'stage') ?? 'prod',
    compute,
    reservedConcurrency: reserved,
    bedrockModels,
    qualifier: text(options, 'qualifier') ?? 'hnb659fds',
  };
};

const formatResult = (result: CheckResult) =>
  [
    `${result.status.toUpperCase().padEnd(8)}${result.name}: ${result.detail}`,
    ...(result.fix && result.status !== 'pass' ? [`        fix: ${result.fix}`] : []),
  ].join('\n');

/** Runs the checks and prints one block per check; true when none failed. */
export const doctorCommand = async (
  clients: DoctorClients,
  options: DoctorOptions,
  print: (line: string) => void,
): Promise<boolean> => {
  print(`Preflight for stage '${options.stage}' (${options.compute}) in ${options.region}:`);
  const results = await runDoctor(clients, options);
  for (const result of results) print(formatResult(result));
  const failed = results.filter((result) => result.status === 'fail').length;
  const unknown = results.filter((result) => result.status === 'unknown').length;
  print(
    failed > 0
      ? `${failed} check(s) failed: fix them before cdk deploy.`
      : `No check failed${unknown > 0 ? ` (${unknown} unknown)` : ''}: deploy with npx cdk deploy -c stage=${options.stage}.`,
  );
  return failed === 0;
};
