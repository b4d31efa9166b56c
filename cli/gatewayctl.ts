import { parseArgs } from 'node:util';
import { adminClient, CliError } from './admin-client.js';
import { budgetValueOptions } from './budget-options.js';
import { commands } from './commands.js';
import { DOCTOR_USAGE, doctorCommand, doctorOptionsFrom } from './doctor-command.js';
import { doctorClients } from './doctor-checks.js';

const USAGE = `gatewayctl: manage a model-gateway through its admin API

Usage: gatewayctl <command> [subcommand] [arguments] [options]

  accounts list | get <id> | create --name N [--models a,b] [--quota USD] [--rpm N] [--tpm N] [BUDGET]
           update <id> [--name N] [--status active|disabled] [--models a,b|all] [--quota USD|none] [--rpm N] [--tpm N] [BUDGET]
           delete <id>   (the account and all its keys; its usage records stay until they expire)
  keys     list --account ID | create --account ID [--name N] [--role user|admin] [--expires ISO]
           [--models a,b] [--rpm N] [--tpm N] [--allowed-ips CIDR,CIDR] [BUDGET] | update <key id> [same options]
           revoke <key id>
  members  list [--account ID] | put <email> [--account ID] [--role member|account-admin|admin] [BUDGET]
           delete <email>   (their keys are revoked)
  channels list | put <id> (-f body.json | --type T --models a,b [--base-url U] [--api-key K]) | delete <id>
  models   list (served models, their channels and pricing) | put <model> [--input USD/MTok --output USD/MTok [--cached-input USD/MTok]] [--aliases a,b]
  usage    [--account ID] [--key-id ID] [--model M] [--from ISO] [--to ISO] [--limit N] [--cursor C]
           [--group-by model|account|key|day]   (records newest first, totals over the whole query)
  metrics  requests, errors, tokens, cost and times since the gateway started, per model and account
  apply    -f config.yaml
  doctor   [--stage S] [--compute K] [--config F] ...   before a deploy: can this AWS account take the stack?
           (gatewayctl doctor --help lists each check; needs AWS credentials, no admin key)

  BUDGET   --budget USD --period day|week|month|total [--alert-at 0.5,0.8,1] sets a budget (periods in UTC),
           --no-budget removes it. A member's budget covers the keys they create.

Options:
  --url URL     the gateway's base URL (env GATEWAY_URL, default http://127.0.0.1:8787)
  --key KEY     an admin key (env GATEWAY_ADMIN_KEY)
  --json        print the API's JSON instead of tables
  -h, --help    this text
`;

const optionNames = [
  'url',
  'key',
  'name',
  'models',
  'quota',
  'rpm',
  'tpm',
  'status',
  'account',
  'role',
  'expires',
  'allowed-ips',
  'type',
  'base-url',
  'api-key',
  'priority',
  'weight',
  'input',
  'output',
  'cached-input',
  'aliases',
  'owned-by',
  'key-id',
  'from',
  'to',
  'limit',
  'model',
  'cursor',
  'group-by',
  ...budgetValueOptions,
  'stage',
  'compute',
  'admin-reserved-concurrency',
  'config',
  'region',
  'qualifier',
] as const;

const main = async (argv: readonly string[]): Promise<void> => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...Object.fromEntries(optionNames.map((name) => [name, { type: 'string' as const }])),
        file: { type: 'string', short: 'f' },
        json: { type: 'boolean' },
        'no-budget': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  const { positionals } = parsed;
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const [group, ...rest] = positionals;
  if (group === 'doctor') {
    if (values.help) {
      process.stdout.write(DOCTOR_USAGE);
      return;
    }
    const options = await doctorOptionsFrom(values, process.env);
    const passed = await doctorCommand(doctorClients(options.region), options, (line) =>
      process.stdout.write(`${line}\n`),
    );
    if (!passed) process.exitCode = 1;
    return;
  }
  if (values.help || !group) {
    process.stdout.write(USAGE);
    return;
  }
  const subcommands = commands[group];
  if (!subcommands) throw new CliError(`Unknown command '${group}'.\n\n${USAGE}`, 2);
  const takesSubcommand = !('' in subcommands);
  const name = takesSubcommand ? rest[0] : '';
  const command = name === undefined ? undefined : subcommands[name];
  if (!command)
    throw new CliError(
      `Unknown or missing subcommand for '${group}': expected ${Object.keys(subcommands).join(', ')}.`,
      2,
    );

  const url = (values.url as string | undefined) ?? process.env.GATEWAY_URL ?? 'http://127.0.0.1:8787';
  const key = (values.key as string | undefined) ?? process.env.GATEWAY_ADMIN_KEY;
  if (!key) throw new CliError('No admin key: pass --key or set GATEWAY_ADMIN_KEY.', 2);
  await command({
    client: adminClient(url, key),
    options: values,
    args: takesSubcommand ? rest.slice(1) : rest,
    json: values.json === true,
    print: (text) => process.stdout.write(`${text}\n`),
  });
};

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`gatewayctl: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`gatewayctl: unexpected error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
