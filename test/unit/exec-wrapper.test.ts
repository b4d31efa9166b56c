import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { V8_TIERING_FLAGS, wrappedCommand, writeExecWrapper } from '../../infra/build/exec-wrapper.js';

const run = promisify(execFile);

describe('the exec wrapper', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'gateway-exec-wrapper-'));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it('runs the command it is given with the flags after Node, every argument as it came (spaces and quotes kept)', async () => {
    const script = await writeExecWrapper(directory);
    const { stdout } = await run(script, [
      process.execPath,
      '--no-warnings',
      '-e',
      'console.log(JSON.stringify({ execArgv: process.execArgv, argv: process.argv.slice(1) }))',
      'one two',
      '"quoted" $HOME',
    ]);
    const { execArgv, argv } = JSON.parse(stdout) as { execArgv: string[]; argv: string[] };
    expect(execArgv.slice(0, V8_TIERING_FLAGS.length)).toEqual([...V8_TIERING_FLAGS]);
    expect(execArgv).toContain('--no-warnings');
    expect(argv).toEqual(['one two', '"quoted" $HOME']);
  });

  it('is put before a command only when the environment names one, /var/task standing for the task root', () => {
    const command = ['/usr/bin/node', 'client.mjs'];
    expect(wrappedCommand(command, {}, '/bundle')).toEqual(command);
    expect(wrappedCommand(command, { AWS_LAMBDA_EXEC_WRAPPER: '/var/task/start-node.sh' }, '/bundle')).toEqual([
      '/bundle/start-node.sh',
      ...command,
    ]);
    expect(wrappedCommand(command, { AWS_LAMBDA_EXEC_WRAPPER: '/opt/wrapper' }, '/bundle')).toEqual([
      '/opt/wrapper',
      ...command,
    ]);
  });
});
