import path from 'node:path';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { esbuildOptions, lambdaNodeTarget, projectRoot } from '../build/esbuild-options.js';

/** The console function serves its page from `web/` beside its bundle: built right after bundling. */
const consoleWebHooks: nodejs.ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir, outputDir) => [
    [
      process.execPath,
      path.join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      path.join(projectRoot, 'infra', 'build', 'console-web.ts'),
      path.join(outputDir, 'web'),
    ]
      .map((part) => JSON.stringify(part))
      .join(' '),
  ],
};

/**
 * The shared esbuild options (`infra/build/esbuild-options.ts`) in the shape `NodejsFunction`
 * takes, so that `cdk synth` and `npm run build` produce the same bundle. Derived from the options
 * object itself rather than restated, so the two cannot drift.
 */
export const lambdaBundlingOptions = (group: string): nodejs.BundlingOptions => {
  const shared = esbuildOptions(group, 'index.mjs');
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
    ...(group === 'console' ? { commandHooks: consoleWebHooks } : {}),
  };
};
