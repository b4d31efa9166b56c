/**
 * Runs a built bundle (`dist/<group>/index.mjs`) the way Lambda does: imported once by a fresh Node
 * process that provides the runtime's `awslambda` streaming globals, then handed API Gateway events.
 * `npm run build` uses it to time each bundle's module init; the bundle test uses it to prove that
 * the module replacements in `esbuild-options.ts` leave every path the gateway takes working.
 */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { EXEC_WRAPPER_ON_LAMBDA } from './exec-wrapper.js';

const run = promisify(execFile);

/**
 * The child's script, run with `--input-type=module`. Its arguments: the bundle's path, then the
 * events as JSON (none: only import it). It prints the import time and each invocation's result.
 * `streamifyResponse` and `HttpResponseStream.from` stand in for the runtime's own; a streaming
 * handler writes into a stream that keeps every chunk.
 */
const childScript = `
import { Writable } from 'node:stream';
const [bundleUrl, eventsJson] = process.argv.slice(1);
const streaming = Symbol('streaming');
globalThis.awslambda = Object.assign(globalThis.awslambda ?? {}, {
  streamifyResponse: (handler) => Object.assign(handler, { [streaming]: true }),
  HttpResponseStream: { from: (stream, prelude) => Object.assign(stream, { prelude }) },
});
class ResponseStream extends Writable {
  chunks = [];
  prelude = {};
  _write(chunk, _encoding, callback) { this.chunks.push(Buffer.from(chunk)); callback(); }
}
const context = (event) => ({
  awsRequestId: event.requestContext?.requestId ?? 'bundle-runner',
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'bundle-runner',
  getRemainingTimeInMillis: () => 30000,
  callbackWaitsForEmptyEventLoop: true,
});
const started = performance.now();
const { handler } = await import(bundleUrl);
const initMs = performance.now() - started;
if (typeof handler !== 'function') throw new Error('the bundle exports no handler function');
const results = [];
for (const event of JSON.parse(eventsJson ?? '[]')) {
  if (handler[streaming]) {
    const stream = new ResponseStream();
    await handler(event, stream, context(event));
    const prelude = stream.prelude;
    results.push({ statusCode: prelude.statusCode ?? 200, headers: prelude.headers ?? {}, body: Buffer.concat(stream.chunks).toString('utf8') });
  } else {
    const result = await handler(event, context(event));
    const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body ?? '';
    results.push({ statusCode: result.statusCode, headers: result.headers ?? {}, body });
  }
}
// SDK clients keep sockets open: exit once the answer is out rather than wait for them.
process.stdout.write(JSON.stringify({ initMs, results }), () => process.exit(0));
`;

/** What a bundle's handler answered, streamed or buffered, with the body as text. */
export interface InvocationResult {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | number | boolean>>;
  readonly body: string;
}

interface ChildOutput {
  readonly initMs: number;
  readonly results: InvocationResult[];
}

/**
 * Environment of a Lambda function, as far as module init can tell: a region and the role's
 * credentials in variables (dummies: nothing here calls AWS), and nothing from this machine.
 */
export const lambdaLikeEnvironment = (functionName: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBUNDLERUNNER',
  AWS_SECRET_ACCESS_KEY: 'bundle-runner-secret',
  AWS_SESSION_TOKEN: 'bundle-runner-session',
  AWS_LAMBDA_FUNCTION_NAME: functionName,
});

/** A gateway function's environment as the stack sets what the runtime reads: its name and its exec wrapper. */
export const functionEnvironment = (group: string): NodeJS.ProcessEnv => ({
  ...lambdaLikeEnvironment(`model-gateway-${group}`),
  AWS_LAMBDA_EXEC_WRAPPER: EXEC_WRAPPER_ON_LAMBDA,
});

const runChild = async (
  outfile: string,
  events: readonly unknown[] | undefined,
  environment: NodeJS.ProcessEnv,
): Promise<ChildOutput> => {
  const args = ['--input-type=module', '--eval', childScript, pathToFileURL(outfile).href];
  if (events) args.push(JSON.stringify(events));
  const { stdout } = await run(process.execPath, args, { env: environment, maxBuffer: 16 * 1024 * 1024 });
  // The bundle's own log lines come first; the child's report is the last line.
  return JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? '') as ChildOutput;
};

/**
 * Imports the bundle in a fresh process and hands it each event in turn, as one warm Lambda
 * instance would; the bundle's own environment is `environment` only.
 */
export const invokeBundle = async (
  outfile: string,
  events: readonly unknown[],
  environment: NodeJS.ProcessEnv,
): Promise<InvocationResult[]> => (await runChild(outfile, events, environment)).results;

export interface InitTiming {
  /** Median of the measured runs, in milliseconds. */
  readonly medianMs: number;
  readonly runsMs: readonly number[];
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Module init of a bundle: the time `import()` takes (read, compile, top-level code) in a fresh
 * process, Node's own start-up excluded. One run first warms the file cache and is not counted.
 */
export const measureInit = async (outfile: string, functionName: string, runs = 5): Promise<InitTiming> => {
  const environment = lambdaLikeEnvironment(functionName);
  await runChild(outfile, undefined, environment);
  const runsMs: number[] = [];
  for (let index = 0; index < runs; index += 1) runsMs.push((await runChild(outfile, undefined, environment)).initMs);
  return { medianMs: median(runsMs), runsMs };
};
