/**
 * Runs a built bundle the way Lambda's managed Node.js runtime does: AWS's runtime interface client
 * (`runtime-interface-client.ts`) in a fresh Node process, polling a local Runtime API
 * (`lambda-runtime-api.ts`) that hands it API Gateway events. Its cold start is measured as Lambda
 * reports `Init Duration`: from the process's start to its first poll for an invocation, Node's own
 * start-up and the client's included, so it compares with a hello-world function run the same way.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { median, type InvocationResult } from './bundle-runner.js';
import { startRuntimeApi } from './lambda-runtime-api.js';
import { wrappedCommand } from './exec-wrapper.js';
import { inTemporaryDirectory } from './temporary-directory.js';
import { nativeClientHooks, runtimeClientEnvironment, runtimeInterfaceClientSync } from './runtime-interface-client.js';

export interface RuntimeClientInstance {
  /** Milliseconds from the process's start until the runtime asked for its first invocation. */
  readonly initMs: number;
  invoke(event: unknown): Promise<InvocationResult>;
  close(): Promise<void>;
}

/** The last lines a process wrote, for the error when it dies during init. */
const tailOf = (text: string) => text.split('\n').slice(-20).join('\n');

/** Starts one function instance of the bundle at `outfile` (its directory is the task root). */
export const startUnderRuntimeClient = async (
  outfile: string,
  environment: NodeJS.ProcessEnv,
): Promise<RuntimeClientInstance> => {
  const client = runtimeInterfaceClientSync();
  const api = await startRuntimeApi(environment.AWS_LAMBDA_FUNCTION_NAME);
  const started = performance.now();
  // Through the function's exec wrapper when its environment names one, as Lambda's bootstrap starts it.
  const [command, ...args] = wrappedCommand(
    [process.execPath, '--import', nativeClientHooks, client],
    environment,
    path.dirname(outfile),
  );
  const child = spawn(command!, args, {
    env: {
      ...runtimeClientEnvironment(api.address, path.dirname(outfile), environment.AWS_LAMBDA_FUNCTION_NAME),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-16_384);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`the runtime exited (${signal ?? code}):\n${tailOf(output)}`)),
    ),
  );
  exited.catch(() => undefined);
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill();
      await gone;
    }
    await api.close();
  };
  try {
    const initDoneAt = await Promise.race([api.initDone, exited]);
    return {
      initMs: initDoneAt - started,
      invoke: (event) => Promise.race([api.invoke(event), exited]),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};

/** Hands each event in turn to one fresh instance of the bundle, as a warm Lambda instance would get them. */
export const invokeUnderRuntimeClient = async (
  outfile: string,
  events: readonly unknown[],
  environment: NodeJS.ProcessEnv,
): Promise<InvocationResult[]> => {
  const instance = await startUnderRuntimeClient(outfile, environment);
  try {
    const results: InvocationResult[] = [];
    for (const event of events) results.push(await instance.invoke(event));
    return results;
  } finally {
    await instance.close();
  }
};

interface Measured {
  readonly outfile: string;
  readonly environment: NodeJS.ProcessEnv;
}

/**
 * Cold starts of `runs` fresh instances of each function, started in turn (first, second, …, first,
 * …) after one unmeasured run of each that warms the file cache: a shared host's speed drifts within
 * a minute, and taken in turn every function's runs see the same moments of it.
 */
const coldStartsInTurn = async (functions: readonly Measured[], runs: number): Promise<number[][]> => {
  const timings = functions.map((): number[] => []);
  for (let index = 0; index <= runs; index += 1) {
    for (const [position, { outfile, environment }] of functions.entries()) {
      const instance = await startUnderRuntimeClient(outfile, environment);
      await instance.close();
      if (index > 0) timings[position]!.push(instance.initMs);
    }
  }
  return timings;
};

/** Runs `measure` with a hello-world function (a handler returning a constant) written to a file. */
const withHelloWorld = <T>(measure: (outfile: string) => Promise<T>): Promise<T> =>
  inTemporaryDirectory('gateway-hello-world-', async (directory) => {
    const outfile = path.join(directory, 'index.mjs');
    await writeFile(outfile, "export const handler = async () => ({ statusCode: 200, body: 'hello' });\n");
    return measure(outfile);
  });

/** The cold start of a hello-world function, the baseline of DESIGN §6. */
export const measureHelloWorldColdStart = (environment: NodeJS.ProcessEnv, runs = 5): Promise<number> =>
  withHelloWorld(async (outfile) => median((await coldStartsInTurn([{ outfile, environment }], runs))[0]!));

export interface PairedColdStart {
  /** The bundle's median cold start. */
  readonly ms: number;
  /** The hello-world's, from the runs between the bundle's. */
  readonly helloWorldMs: number;
  /**
   * The median of each bundle start over the hello-world start just before it: a moment of the
   * host's drift falls on both starts of a pair, where the two medians may each take another moment.
   */
  readonly ratio: number;
}

/**
 * A bundle's cold start and a hello-world's, their fresh instances started in turn, so that a
 * baseline measured once before every bundle does not put the host's drift into the ratios.
 */
export const measurePairedColdStart = (
  outfile: string,
  environment: NodeJS.ProcessEnv,
  runs = 5,
): Promise<PairedColdStart> =>
  withHelloWorld(async (helloWorld) => {
    const helloWorldEnvironment = { ...environment, AWS_LAMBDA_FUNCTION_NAME: 'hello-world' };
    const [helloWorlds, bundles] = (await coldStartsInTurn(
      [
        { outfile: helloWorld, environment: helloWorldEnvironment },
        { outfile, environment },
      ],
      runs,
    )) as [number[], number[]];
    return {
      ms: median(bundles),
      helloWorldMs: median(helloWorlds),
      ratio: median(bundles.map((ms, index) => ms / helloWorlds[index]!)),
    };
  });
