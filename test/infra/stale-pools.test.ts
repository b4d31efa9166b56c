import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import { staleCiUserPools, type UserPoolSummary } from '../../infra/ci-setup/stale-pools.js';
import type { StackSummary } from '../../infra/ci-setup/stale-stages.js';

/** The clean-up of user pools CI stages left behind (a run interrupted while its stack was deleted). */

const now = new Date('2026-11-23T12:00:00Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
const pool = (Name: string, age: number, Id = `us-east-1_${Name.replace(/\W/g, '')}`): UserPoolSummary => ({
  Id,
  Name,
  CreationDate: hoursAgo(age),
});
const stack = (StackName: string, StackStatus = 'CREATE_COMPLETE'): StackSummary => ({
  StackName,
  StackStatus,
  CreationTime: hoursAgo(10),
});

it("picks CI stages' pools whose stack is gone, old enough that no run still uses them", () => {
  const pools = [
    pool('ModelGateway-ci-100', 9, 'gone'),
    pool('ModelGateway-ci-101', 9, 'deleted-stack'),
    pool('ModelGateway-ci-102', 9, 'stack-still-there'),
    pool('ModelGateway-ci-103', 1, 'too-young'),
    pool('ModelGateway-prod', 900, 'prod'),
    pool('ModelGateway-dev', 900, 'dev'),
    pool('someone-elses-pool', 900, 'other'),
  ];
  const stacks = [stack('ModelGateway-ci-101', 'DELETE_COMPLETE'), stack('ModelGateway-ci-102', 'DELETE_FAILED')];

  expect(staleCiUserPools(pools, stacks, now, 6)).toEqual(['deleted-stack', 'gone']);
});

it('prints the pool ids from the CLI outputs it is given, as the clean-up workflow runs it', async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'stale-pools-'));
  try {
    const old = new Date(Date.now() - 30 * 3_600_000).toISOString();
    writeFileSync(
      path.join(folder, 'pools.json'),
      JSON.stringify({ UserPools: [{ Id: 'eu-west-1_abc', Name: 'ModelGateway-ci-7', CreationDate: old }] }),
    );
    writeFileSync(path.join(folder, 'stacks.json'), JSON.stringify({ StackSummaries: [] }));
    const { stdout } = await promisify(execFile)(
      path.join(projectRoot, 'node_modules', '.bin', 'node'),
      [
        '--import',
        'tsx',
        path.join(projectRoot, 'infra', 'ci-setup', 'stale-pools.ts'),
        '--max-age-hours',
        '6',
        path.join(folder, 'pools.json'),
        path.join(folder, 'stacks.json'),
      ],
      { cwd: projectRoot },
    );
    expect(stdout).toBe('eu-west-1_abc\n');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 60_000);
