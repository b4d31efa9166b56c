import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import { staleCiStages, type StackSummary } from '../../infra/ci-setup/stale-stages.js';

const now = new Date('2026-11-23T12:00:00Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
const stack = (StackName: string, age: number, StackStatus = 'CREATE_COMPLETE'): StackSummary => ({
  StackName,
  StackStatus,
  CreationTime: hoursAgo(age),
});

it('picks CI stages older than the age, including those whose deletion failed', () => {
  const stacks = [
    stack('ModelGateway-ci-100', 7),
    stack('ModelGateway-ci-101', 30, 'DELETE_FAILED'),
    stack('ModelGateway-ci-102', 1),
  ];

  expect(staleCiStages(stacks, now, 6)).toEqual(['ci-100', 'ci-101']);
});

it("counts a stage's fixtures stack as its stage, once, so that the stage's destroy removes both", () => {
  const stacks = [
    stack('ModelGateway-ci-300', 7),
    stack('ModelGateway-ci-300-fixtures', 7),
    stack('ModelGateway-ci-301-fixtures', 8, 'DELETE_FAILED'),
    stack('ModelGateway-ci-302-fixtures', 1),
  ];

  expect(staleCiStages(stacks, now, 6)).toEqual(['ci-300', 'ci-301']);
});

it('leaves other stages, other stacks, and stacks in the middle of an operation alone', () => {
  const stacks = [
    stack('ModelGateway-prod', 900),
    stack('ModelGateway-dev', 900),
    stack('ci-200', 900),
    stack('SomethingElse-ci-201', 900),
    stack('ModelGateway-ci-202', 900, 'DELETE_IN_PROGRESS'),
    stack('ModelGateway-ci-203', 900, 'UPDATE_IN_PROGRESS'),
    stack('ModelGateway-ci-204', 900, 'DELETE_COMPLETE'),
  ];

  expect(staleCiStages(stacks, now, 6)).toEqual([]);
});

it('reads `aws cloudformation list-stacks` output on standard input and prints one stage a line', async () => {
  const createdAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
  const listed = {
    StackSummaries: [
      { StackName: 'ModelGateway-ci-300', StackStatus: 'CREATE_COMPLETE', CreationTime: createdAgo(10) },
      { StackName: 'ModelGateway-ci-301', StackStatus: 'ROLLBACK_COMPLETE', CreationTime: createdAgo(8) },
      { StackName: 'ModelGateway-ci-302', StackStatus: 'CREATE_COMPLETE', CreationTime: createdAgo(1) },
      { StackName: 'ModelGateway-prod', StackStatus: 'CREATE_COMPLETE', CreationTime: createdAgo(10) },
    ],
  };
  const child = spawn(
    path.join(projectRoot, 'node_modules', '.bin', 'tsx'),
    ['infra/ci-setup/stale-stages.ts', '--max-age-hours', '6'],
    { cwd: projectRoot },
  );
  child.stdin.end(JSON.stringify(listed));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number];

  expect(code).toBe(0);
  expect(output.trim().split('\n').filter(Boolean).sort()).toEqual(['ci-300', 'ci-301']);
});
