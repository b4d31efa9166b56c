import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { builtinsFromProcess } from '../../infra/build/builtins-from-process.js';
import { lambdaMainFields, lambdaNodeTarget } from '../../infra/build/esbuild-options.js';

/**
 * A server of the bench as one ESM bundle, minified as the Lambda functions are deployed. Run from its
 * TypeScript under tsx instead, every function would be wrapped in tsx's naming helper (esbuild's
 * `keepNames`, which tsx always sets): a property definition each time a closure is made, which the
 * deployed bundles do not pay and which would be counted here.
 */

/**
 * Packages that stay in `node_modules`: those no measured request runs through (the store's stand-in,
 * the console's builder and sign-in, the configuration file's parser, the AWS SDK clients), which
 * would only slow the build. Those a request runs through (zod, middy, the SSE parser) are bundled,
 * as in the functions.
 */
const UNBUNDLED_PACKAGES = ['dynalite', 'esbuild', 'yaml', 'aws-jwt-verify', '@aws-sdk/*', '@smithy/*'];

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const outputRoot = path.join(projectRoot, 'node_modules', '.cache', 'model-gateway-bench');

/**
 * `import.meta.url` as each source file has it: the local runtime finds files beside its modules
 * (the embedded store's server script, the console's sources) and a module's own entry-point check
 * compares it with the command line; bundled, every module would otherwise take the bundle's URL.
 * Each module that reads it gets a constant of its own URL, which `define` points the expression to.
 */
const MODULE_URL = '__ownModuleUrl';
const ownModuleUrls: Plugin = {
  name: 'own-module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return {
        contents: `const ${MODULE_URL} = ${JSON.stringify(pathToFileURL(file).href)};\n${source}`,
        loader: 'ts',
      };
    });
  },
};

/** The bundles of this run, by their folder. */
const built = new Map<string, Promise<string>>();

/** Where a bundle is built from: another copy of the sources (another commit's), and its folder's name. */
export interface BundleSources {
  /** The copy's root; imports resolve from the folders above it, the project's node_modules among them. */
  readonly root: string;
  readonly label: string;
}

/**
 * The bundle of the server module `source` (a path from the project root, or from `sources.root`),
 * built once per run however many servers are started from it.
 */
export const bundledServer = (source: string, sources?: BundleSources): Promise<string> => {
  const name = path.basename(source, '.ts');
  const outdir = path.join(outputRoot, sources?.label ?? name);
  let bundle = built.get(outdir);
  if (!bundle) {
    bundle = buildServer(path.join(sources?.root ?? projectRoot, source), name, outdir);
    built.set(outdir, bundle);
  }
  return bundle;
};

/** Where bundles and the copies of other commits' sources go: inside the project's node_modules. */
export const benchCacheRoot = outputRoot;

const buildServer = async (entry: string, name: string, outdir: string): Promise<string> => {
  await build({
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: lambdaNodeTarget,
    mainFields: [...lambdaMainFields],
    // BENCH_NAMES keeps the functions' names, for reading a profile (`BENCH_CPU_PROFILE`); `raw`
    // leaves the bundles unminified, with the lines a profile points to.
    ...(process.env.BENCH_NAMES === 'raw'
      ? {}
      : process.env.BENCH_NAMES
        ? { minifySyntax: true, minifyWhitespace: true }
        : { minify: true }),
    // Resolved from the bundle's folder, inside the project's node_modules.
    external: UNBUNDLED_PACKAGES,
    // Built-ins as the functions take them, from `process.getBuiltinModule`: an ES module import of
    // `node:http` (middy's, for one) builds a facade whose lazy exports load undici, some 14 MB of
    // memory and a larger heap for every collection to mark, which no deployed function carries.
    plugins: [ownModuleUrls, builtinsFromProcess],
    define: { 'import.meta.url': MODULE_URL },
    logLevel: 'warning',
  });
  return path.join(outdir, `${name}.mjs`);
};
