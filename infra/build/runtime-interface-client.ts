/**
 * AWS's Lambda runtime interface client for Node.js (`aws-lambda-ric`), the program that polls
 * Lambda's Runtime API, imports a function's handler and streams its answers: the same code the
 * managed Node.js runtime runs. The bundles are run under it to measure their cold start and to prove
 * that they stream through its response stream, not only through the local runtime's stand-in.
 *
 * It is not a dependency: its install script compiles curl and a C++ client from source, which needs
 * cmake and minutes on every `npm install`. Its JavaScript is fetched once with `npm pack` (the npm
 * registry and configuration `npm install` uses, install scripts never run) into `node_modules/.cache`,
 * and its native Runtime API client is replaced by a few lines of JavaScript (`nativeClientHooks`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './esbuild-options.js';

/** The version measured against; the managed nodejs24.x runtime ships the same major. */
export const RUNTIME_CLIENT_VERSION = '4.0.2';

const cacheDirectory = path.join(projectRoot, 'node_modules', '.cache', 'model-gateway');
const packageDirectory = path.join(cacheDirectory, `aws-lambda-ric-${RUNTIME_CLIENT_VERSION}`);

/**
 * The client's entry script, fetched on first use; throws when the npm registry cannot be reached.
 * Synchronous, so that a test file can decide at load time whether its cases can run.
 */
export const runtimeInterfaceClientSync = (): string => {
  const entry = path.join(packageDirectory, 'index.mjs');
  if (existsSync(entry)) return entry;
  mkdirSync(cacheDirectory, { recursive: true });
  const staging = `${packageDirectory}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    const packed = execFileSync(
      'npm',
      ['pack', `aws-lambda-ric@${RUNTIME_CLIENT_VERSION}`, '--pack-destination', staging, '--json', '--ignore-scripts'],
      { cwd: staging, timeout: 120_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
    execFileSync('tar', ['-xzf', filename, '--strip-components=1'], { cwd: staging, stdio: 'ignore' });
    // Whole or not at all: a concurrent or interrupted fetch never leaves a half-extracted package.
    // Two processes may fetch at once (test workers): the second one's rename finds the first's.
    try {
      renameSync(staging, packageDirectory);
    } catch (error) {
      if (!existsSync(entry)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return entry;
};

/**
 * A module for `node --import` that stands in for the client's native addon (`rapid-client.node`).
 * The client polls for invocations over HTTP when `AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1` is
 * set, and streams responses over HTTP always; the addon is left posting buffered responses and
 * errors, which these lines do with `node:http`. Everything else is the client's own code. The hooks
 * are removed as soon as the stand-in has loaded, before the client imports the handler.
 */
const hooksSource = `
import { registerHooks } from 'node:module';
const SHIM = 'file:///aws-lambda-ric/rapid-client.cjs';
const source = \`
const http = require('node:http');
const [hostname, port] = process.env.AWS_LAMBDA_RUNTIME_API.split(':');
const post = (path, body) => {
  const request = http.request({ hostname, port, path, method: 'POST', headers: { 'content-type': 'application/json' } });
  request.on('error', () => {});
  request.end(body);
};
module.exports = {
  next() { throw new Error('invocations are polled over HTTP'); },
  done(id, body) { post('/2018-06-01/runtime/invocation/' + id + '/response', body); },
  error(id, body) { post('/2018-06-01/runtime/invocation/' + id + '/error', body); },
};\`;
const hooks = registerHooks({
  resolve: (specifier, context, next) =>
    specifier.endsWith('rapid-client.node') ? { url: SHIM, format: 'commonjs', shortCircuit: true } : next(specifier, context),
  load: (url, context, next) => {
    if (url !== SHIM) return next(url, context);
    // Once the stand-in is loaded the hooks go: Lambda loads the handler's modules without any, and
    // every module a bundle loads through them would make its cold start read slower than on AWS.
    queueMicrotask(() => hooks.deregister());
    return { format: 'commonjs', source, shortCircuit: true };
  },
});
`;

export const nativeClientHooks = `data:text/javascript,${encodeURIComponent(hooksSource)}`;

/** The variables Lambda sets for the runtime: where the Runtime API and the code are, and what the function is. */
export const runtimeClientEnvironment = (
  runtimeApi: string,
  taskRoot: string,
  functionName = 'runtime-client',
): NodeJS.ProcessEnv => ({
  AWS_LAMBDA_RUNTIME_API: runtimeApi,
  LAMBDA_TASK_ROOT: taskRoot,
  _HANDLER: 'index.handler',
  AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1: 'true',
  AWS_LAMBDA_FUNCTION_NAME: functionName,
  AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
  AWS_LAMBDA_LOG_STREAM_NAME: `2026/01/01/[$LATEST]${'0'.repeat(32)}`,
});
