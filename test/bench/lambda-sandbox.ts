/**
 * One Lambda execution environment of a memory size: a fresh Node process running AWS's runtime
 * interface client (as the managed Node.js runtime does) on a bundle, inside its own cgroup, polling
 * the bench's Runtime API. Node gets the heap flags the managed runtime's bootstrap gives it for the
 * memory size, and the environment variables Lambda sets; it starts through the function's exec
 * wrapper when its environment names one (`AWS_LAMBDA_EXEC_WRAPPER`), as the bootstrap starts it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import {
  nativeClientHooks,
  runtimeClientEnvironment,
  runtimeInterfaceClientSync,
} from '../../infra/build/runtime-interface-client.js';
import { wrappedCommand } from '../../infra/build/exec-wrapper.js';
import { concurrentClientHooks } from './concurrent-client-hooks.js';
import { makeCgroup, type Cgroup, type CgroupSupport } from './lambda-cgroup.js';
import { startRuntimeApi, type Invocation } from './lambda-runtime-api.js';

export interface SandboxOptions {
  readonly support: Exclude<CgroupSupport, { version: undefined }>;
  readonly memoryMb: number;
  /** The bundle's entry, `index.mjs`; its folder is the task root. */
  readonly outfile: string;
  readonly environment: NodeJS.ProcessEnv;
  /** Lambda Managed Instances: invocations at once in one environment (`AWS_LAMBDA_MAX_CONCURRENCY`). */
  readonly maxConcurrency?: number;
  /** Writes a V8 CPU profile of the process into this folder when it ends. */
  readonly cpuProfileDirectory?: string;
}

export interface Sandbox {
  /** Milliseconds from the process's start to its first poll: Lambda's `Init Duration`. */
  readonly initMs: number;
  readonly cgroup: Cgroup;
  invoke(event: unknown): Promise<Invocation>;
  /** The process ended on its own (an out-of-memory kill, a crash): the signal or code. */
  readonly exited: () => string | undefined;
  close(): Promise<void>;
}

/**
 * The managed runtime's bootstrap sizes V8's heap from `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`: a tenth of
 * it for the young generation (half of that per semi-space), the rest for the old generation.
 */
export const heapFlagsOf = (memoryMb: number): string[] => {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
};

const EXIT_ON_SIGTERM = `data:text/javascript,${encodeURIComponent("process.on('SIGTERM', () => process.exit(0));")}`;

let sandboxes = 0;

export const startSandbox = async (options: SandboxOptions): Promise<Sandbox> => {
  const client = runtimeInterfaceClientSync();
  const concurrent = (options.maxConcurrency ?? 1) > 1;
  const api = await startRuntimeApi({ concurrent });
  sandboxes += 1;
  const cgroup = makeCgroup(options.support, `model-gateway-bench-${process.pid}-${sandboxes}`, options.memoryMb);
  const functionName = options.environment.AWS_LAMBDA_FUNCTION_NAME ?? 'bench';
  const nodeArgs = [
    ...heapFlagsOf(options.memoryMb),
    // Node writes a `--cpu-prof` profile on a normal exit only: a SIGTERM is made one.
    ...(options.cpuProfileDirectory
      ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDirectory}`, '--import', EXIT_ON_SIGTERM]
      : []),
    '--import',
    concurrent ? concurrentClientHooks : nativeClientHooks,
    client,
  ];
  // Through the function's exec wrapper when its environment names one, as Lambda's bootstrap starts it.
  const command = wrappedCommand([process.execPath, ...nodeArgs], options.environment, path.dirname(options.outfile));
  // The shell joins the cgroup, then becomes Node: everything the process does is counted from its start.
  const join = cgroup.procsFiles.map((_, index) => `echo $$ > "$${index + 1}"`).join(' && ');
  const started = performance.now();
  const child = spawn(
    '/bin/sh',
    ['-c', `${join} && shift ${cgroup.procsFiles.length} && exec "$@"`, 'sh', ...cgroup.procsFiles, ...command],
    {
      env: {
        ...runtimeClientEnvironment(api.address, path.dirname(options.outfile), functionName),
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
        ...(concurrent && {
          AWS_LAMBDA_MAX_CONCURRENCY: String(options.maxConcurrency),
          // Polled through the addon's stand-in, as Lambda polls (concurrent-client-hooks.ts).
          AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1: 'false',
        }),
        ...options.environment,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8192);
  });
  let exitedWith: string | undefined;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      exitedWith = String(signal ?? code);
      reject(new Error(`the runtime exited (${exitedWith}):\n${output.split('\n').slice(-15).join('\n')}`));
    }),
  );
  exited.catch(() => undefined);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(options.cpuProfileDirectory ? 'SIGTERM' : 'SIGKILL');
      await gone;
    }
    await api.close();
    // The kernel lets go of a process's cgroup a moment after its exit.
    for (let attempt = 0; ; attempt += 1) {
      try {
        cgroup.remove();
        return;
      } catch (error) {
        if (attempt > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  try {
    const initDoneAt = await Promise.race([api.initDone, exited]);
    return {
      initMs: initDoneAt - started,
      cgroup,
      invoke: (event) => Promise.race([api.invoke(event), exited]),
      exited: () => exitedWith,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};
