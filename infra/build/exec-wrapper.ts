/**
 * The wrapper script every function starts through (`AWS_LAMBDA_EXEC_WRAPPER`): the managed Node.js
 * runtime's bootstrap runs it with the Node command line it would have run, and it runs that same
 * command with V8 tiering flags added. Lambda's `NODE_OPTIONS` takes no V8 flags beyond a short
 * list, so a wrapper is the one place they can be set.
 *
 * Why the flags: V8 optimizes a function after about 400 calls by default. A Lambda invocation calls
 * most of the gateway's functions about once, so an environment runs its first 400–600 invocations
 * mostly unoptimized, at twice the CPU of a warm one; at a memory size's CPU share that CPU is the
 * latency and the memory size. Optimizing after 50 calls moves the compile work into the first
 * invocations instead (`npm run bench:lambda`: docs/cost.md has the figures with and without).
 *
 * The flags are V8's, not Node's: a Node major keeps its V8 major, so the runtime's minor updates
 * keep them. Moving to a new Node major, the bundle suite runs every bundle through this wrapper, and
 * Node refuses to start on a flag its V8 no longer has.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const EXEC_WRAPPER_FILE = 'start-node.sh';

/** Where Lambda finds it: the bundle is unpacked into the task root, `/var/task`. */
export const EXEC_WRAPPER_ON_LAMBDA = `/var/task/${EXEC_WRAPPER_FILE}`;

/** Optimize (with Maglev) after 50 calls rather than 400, and wait 50 calls, not 500, after a type feedback change. */
export const V8_TIERING_FLAGS = [
  '--invocation-count-for-maglev=50',
  '--minimum-invocations-after-ic-update=50',
] as const;

/** The script: the runtime's command with the flags after the Node binary, everything else as it came. */
export const execWrapperScript = (): string =>
  [
    '#!/bin/sh',
    '# Started by the Lambda runtime (AWS_LAMBDA_EXEC_WRAPPER) with its Node command line: $1 is Node.',
    '# Written by infra/build/exec-wrapper.ts, which says why these flags.',
    'node="$1"',
    'shift',
    `exec "$node" ${V8_TIERING_FLAGS.join(' ')} "$@"`,
    '',
  ].join('\n');

/** Writes the wrapper into a bundle's directory, executable, as the zip keeps a file's mode. */
export const writeExecWrapper = async (bundleDirectory: string): Promise<string> => {
  const file = path.join(bundleDirectory, EXEC_WRAPPER_FILE);
  await writeFile(file, execWrapperScript());
  await chmod(file, 0o755);
  return file;
};

/**
 * The command a Lambda runtime starts for `command` (Node and its arguments) when the function's
 * environment sets `AWS_LAMBDA_EXEC_WRAPPER`: the wrapper first, as the bootstrap runs it, with the
 * task root standing where Lambda has `/var/task`. Without the variable, `command` itself.
 */
export const wrappedCommand = (
  command: readonly string[],
  environment: NodeJS.ProcessEnv,
  taskRoot: string,
): string[] => {
  const wrapper = environment.AWS_LAMBDA_EXEC_WRAPPER;
  if (!wrapper) return [...command];
  const local = wrapper.startsWith('/var/task/') ? path.join(taskRoot, wrapper.slice('/var/task/'.length)) : wrapper;
  return [local, ...command];
};
