import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ciStagePrefix, stackNameForStage } from '../stage.js';
import type { StackSummary } from './stale-stages.js';

/**
 * Which user pools of CI stages the scheduled clean-up deletes: pools named after a CI stack
 * (`ModelGateway-ci-…`, the name the stack gives its pool) whose stack no longer exists, created more
 * than `maxAgeHours` ago. A stage's pool goes with its stack; this finds the ones a run interrupted
 * mid-destroy left behind. Reads `aws cognito-idp list-user-pools` and `aws cloudformation
 * list-stacks` output (JSON files named on the command line) and prints one pool id per line.
 */

export interface UserPoolSummary {
  readonly Id: string;
  readonly Name: string;
  readonly CreationDate: string;
}

const ciStackPrefix = stackNameForStage(ciStagePrefix);

export const staleCiUserPools = (
  pools: readonly UserPoolSummary[],
  stacks: readonly StackSummary[],
  now: Date,
  maxAgeHours: number,
): string[] => {
  const cutoff = now.getTime() - maxAgeHours * 3_600_000;
  const liveStacks = new Set(
    stacks.filter((stack) => stack.StackStatus !== 'DELETE_COMPLETE').map((stack) => stack.StackName),
  );
  return pools
    .filter((pool) => pool.Name.startsWith(ciStackPrefix) && !liveStacks.has(pool.Name))
    .filter((pool) => Date.parse(pool.CreationDate) < cutoff)
    .map((pool) => pool.Id)
    .sort();
};

const main = () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'max-age-hours': { type: 'string', default: '6' } },
  });
  const maxAgeHours = Number(values['max-age-hours']);
  if (!Number.isFinite(maxAgeHours) || maxAgeHours < 2)
    throw new Error('--max-age-hours takes a number of hours, 2 or more.');
  const [poolsFile, stacksFile] = positionals;
  if (!poolsFile || !stacksFile) throw new Error('Give the list-user-pools and the list-stacks JSON files.');
  const pools = JSON.parse(readFileSync(poolsFile, 'utf8')) as { UserPools?: UserPoolSummary[] };
  const stacks = JSON.parse(readFileSync(stacksFile, 'utf8')) as { StackSummaries?: StackSummary[] };
  for (const id of staleCiUserPools(pools.UserPools ?? [], stacks.StackSummaries ?? [], new Date(), maxAgeHours))
    process.stdout.write(`${id}\n`);
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
