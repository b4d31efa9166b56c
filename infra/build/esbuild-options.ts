/**
 * How every Lambda bundle is built, defined once: the CDK functions construct and `npm run build`
 * both read these settings, so the bundle measured locally is the bundle that is deployed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { builtinsFromProcess } from './builtins-from-process.js';
import { initInOneChunk } from './init-in-one-chunk.js';
import { topLevelFunctions } from './top-level-functions.js';

/** DESIGN §6: each function bundle, AWS SDK clients included, at most 250 KB minified. */
export const bundleSizeLimitBytes = 250 * 1024;

/** The repository root, whatever the working directory of the process that builds. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Each endpoint group's Lambda entry: `functions/<group>/handler.ts`, exporting `handler`. */
export const functionEntry = (group: string): string => path.join(projectRoot, 'functions', group, 'handler.ts');

/** Matches the Lambda runtime the functions construct selects (nodejs24.x). */
export const lambdaNodeTarget = 'node24';

/** ESM first, so tree shaking works on the AWS SDK's `dist-es` builds. */
export const lambdaMainFields: readonly string[] = ['module', 'main'];

const buildFile = (name: string) => path.join(projectRoot, 'infra', 'build', name);

/**
 * Module replacements, from package name to a file: SDK code that a Lambda function never runs with
 * the gateway's configuration. Each is explained in its file;
 * `test/infra/bundle.test.ts` runs the bundles through the paths that reach them. The local runtime
 * runs the sources unbundled and keeps the real packages.
 */
export const moduleAliases: Readonly<Record<string, string>> = {
  // Lambda supplies credentials in the environment: no SSO, STS, profiles or IMDS chain.
  '@aws-sdk/credential-provider-node': buildFile('lambda-credentials.ts'),
  // Bedrock's bearer-token scheme, minus the SSO session reader and its OIDC client.
  '@aws-sdk/token-providers': buildFile('lambda-token-providers.ts'),
  // DynamoDB's endpoint-discovery cache, never read, on a Map instead of mnemonist.
  '@aws-sdk/endpoint-cache': buildFile('lambda-endpoint-cache.ts'),
  // Bedrock's payload handler for bidirectional streams, a command the gateway does not send.
  '@aws-sdk/eventstream-handler-node': buildFile('lambda-eventstream-handler.ts'),
  // The HTTP/1.1 handler only: every client the gateway makes runs on it.
  '@smithy/node-http-handler': buildFile('lambda-http-handler.ts'),
};

/**
 * The groups whose bundles hold the Bedrock client, and so the SDK's event-stream decoder it imports:
 * chat (chat, messages and responses are Bedrock's endpoints, ConverseStream among them), and the
 * console, whose channel check reaches the same adapter registry (Bedrock's adapter is a chunk loaded
 * on first use, and the check refuses Bedrock channels before any call). The others leave the
 * decoder out; it is about 19 KB.
 */
export const eventStreamGroups: readonly string[] = ['chat', 'console'];

/** The module replacements of one group's bundle. */
export const moduleAliasesFor = (group: string): Readonly<Record<string, string>> =>
  eventStreamGroups.includes(group)
    ? moduleAliases
    : { ...moduleAliases, '@smithy/core/event-streams': buildFile('lambda-no-event-streams.ts') };

/**
 * Where chunks go beside a bundle's entry: code reached only through a dynamic `import()` (the Bedrock
 * Runtime and Secrets Manager clients) is split off and loaded when first needed, so a function that
 * never calls them neither reads nor initialises it.
 */
export const chunkDirectory = 'chunks';

/**
 * esbuild options for one group's bundle. No externals: the AWS SDK v3 clients are bundled, pinned
 * to our lock file rather than to whatever the runtime ships. No source maps: they would double the
 * bundle and need `--enable-source-maps`, which slows every cold start. `outfile` names the entry
 * (`index.mjs`); with code splitting esbuild writes it, and the chunks, into its directory.
 */
export const esbuildOptions = (group: string, outfile: string, entry = functionEntry(group)): BuildOptions => ({
  entryPoints: [{ in: entry, out: path.basename(outfile, path.extname(outfile)) }],
  outdir: path.dirname(outfile),
  // ESM in a directory without a package.json: every file needs the .mjs extension.
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: `${chunkDirectory}/[name]-[hash]`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: lambdaNodeTarget,
  mainFields: [...lambdaMainFields],
  minify: true,
  sourcemap: false,
  external: [],
  alias: { ...moduleAliasesFor(group) },
  // What init runs in one chunk, not one per set of lazy modules sharing it; and Node's built-ins
  // from `process.getBuiltinModule`, imported or required alike: no module facade loads what is
  // unused, and no chunk needs a `require` of its own. The first sees dynamic imports of built-ins.
  // Module-level arrows compiled as functions, several times faster at every cold start.
  plugins: [
    initInOneChunk(entry),
    builtinsFromProcess,
    topLevelFunctions(lambdaNodeTarget, path.join(projectRoot, 'tsconfig.json')),
  ],
  logLevel: 'warning',
});
