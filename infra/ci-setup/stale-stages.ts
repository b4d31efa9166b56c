import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixturesStackSuffix } from '../fixtures/fixtures-stage.js';
import { ciStagePrefix, stackNameForStage } from '../stage.js';

/**
 * Which CI stages the scheduled clean-up destroys: stacks of `ci-*` stages created more than
 * `maxAgeHours` ago and not in the middle of an operation (a run still deploying or destroying its
 * own stage is left alone). A stage's fixtures stack (`ModelGateway-ci-…-fixtures`) counts as its
 * stage: `cdk destroy --all -c stage=…` removes both. Reads `aws cloudformation list-stacks --output json` on standard input
 * and prints one stage name per line.
 */

export interface StackSummary {
  readonly StackName: string;
  readonly StackStatus: string;
  readonly CreationTime: string;
}

const ciStackPrefix = stackNameForStage(ciStagePrefix);

export const staleCiStages = (stacks: readonly StackSummary[], now: Date, maxAgeHours: number): string[] => {
  const cutoff = now.getTime() - maxAgeHours * 3_600_000;
  return stacks
    .filter((stack) => stack.StackName.startsWith(ciStackPrefix))
    .filter((stack) => stack.StackStatus !== 'DELETE_COMPLETE' && !stack.StackStatus.endsWith('_IN_PROGRESS'))
    .filter((stack) => Date.parse(stack.CreationTime) < cutoff)
    .map((stack) => stack.StackName.slice(stackNameForStage('').length))
    .map((name) => (name.endsWith(fixturesStackSuffix) ? name.slice(0, -fixturesStackSuffix.length) : name))
    .filter((stage, index, stages) => stages.indexOf(stage) === index)
    .sort();
};

const main = () => {
  const flag = process.argv.indexOf('--max-age-hours');
  const maxAgeHours = Number(flag >= 0 ? process.argv[flag + 1] : 6);
  // A run's stage lives at most as long as its job (60 minutes): younger stacks may still be in use.
  if (!Number.isFinite(maxAgeHours) || maxAgeHours < 2)
    throw new Error('--max-age-hours takes a number of hours, 2 or more.');
  const listed = JSON.parse(readFileSync(0, 'utf8')) as { StackSummaries?: StackSummary[] };
  for (const stage of staleCiStages(listed.StackSummaries ?? [], new Date(), maxAgeHours))
    process.stdout.write(`${stage}\n`);
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
