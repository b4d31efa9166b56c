import path from 'node:path';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { esbuildOptions, functionEntry, lambdaNodeTarget, projectRoot } from '../build/esbuild-options.js';

const tsx = (script: string, ...args: string[]) =>
  [
    process.execPath,
    path.join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
    path.join(projectRoot, script),
    ...args,
  ]
    .map((part) => JSON.stringify(part))
    .join(' ');

/**
 * After esbuild's one-file bundle, every function's bundle is written again with code splitting
 * (`split-bundle.ts`: clients a request rarely needs become chunks loaded on first use); the console
 * function also gets its page in `web/` beside the bundle.
 */
const afterBundlingHooks = (group: string, entry: string): nodejs.ICommandHooks => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir, outputDir) => [
    tsx(path.join('infra', 'build', 'split-bundle.ts'), group, outputDir, entry),
    ...(group === 'console' ? [tsx(path.join('infra', 'build', 'console-web.ts'), path.join(outputDir, 'web'))] : []),
  ],
});

/**
 * The shared esbuild options (`infra/build/esbuild-options.ts`) in the shape `NodejsFunction`
 * takes, so that `cdk synth` and `npm run build` produce the same bundle. Derived from the options
 * object itself rather than restated, so the two cannot drift.
 */
export const lambdaBundlingOptions = (group: string, entry = functionEntry(group)): nodejs.BundlingOptions => {
  const shared = esbuildOptions(group, 'index.mjs', entry);
  if (shared.format !== 'esm') throw new Error('The Lambda bundles are ESM: NodejsFunction is set up for that only.');
  return {
    format: nodejs.OutputFormat.ESM,
    target: typeof shared.target === 'string' ? shared.target : lambdaNodeTarget,
    mainFields: shared.mainFields ? [...shared.mainFields] : undefined,
    minify: shared.minify ?? false,
    sourceMap: Boolean(shared.sourcemap),
    banner: shared.banner?.js,
    externalModules: [...(shared.external ?? [])],
    esbuildArgs: {
      '--alias': Object.entries(shared.alias ?? {}).map(([from, to]) => `${from}=${to}`),
    },
    // esbuild from node_modules: synthesis needs neither Docker nor a network.
    forceDockerBundling: false,
    commandHooks: afterBundlingHooks(group, entry),
  };
};
