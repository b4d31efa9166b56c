/**
 * `npm run build`: bundles every endpoint group's handler with the same esbuild options the CDK
 * stack deploys, writes `dist/<group>/index.mjs`, and reports each bundle's size against the 250 KB
 * budget, its module init time, and its cold start under AWS's runtime interface client against a
 * hello-world function's (DESIGN §6: at most 1.5×; `bundle-budgets.ts`), with a function that only
 * makes the store connection as the reference every group's cold start sits on. It fails when a
 * bundle is over the budget, or does not build or start. `-- --analyze` also prints what each bundle
 * is made of, by package.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { functionGroups, type FunctionGroup } from '../../functions/shared/routes.js';
import { coldStartBudgetRatio, initBudgetMs } from './bundle-budgets.js';
import { chunksOf } from './bundle-chunks.js';
import { assertNoDynamicRequire } from './builtins-from-process.js';
import { bytesByPackage } from './bundle-contents.js';
import { lambdaLikeEnvironment, measureInit } from './bundle-runner.js';
import { bundleSizeLimitBytes, esbuildOptions, projectRoot } from './esbuild-options.js';
import { measureHelloWorldColdStart, measurePairedColdStart, type PairedColdStart } from './runtime-client-runner.js';
import { inTemporaryDirectory } from './temporary-directory.js';
import { writeExecWrapper } from './exec-wrapper.js';

export interface BundleResult {
  readonly group: FunctionGroup;
  /** The entry file, `index.mjs`; chunks are beside it. */
  readonly outfile: string;
  /** What a cold start loads: the entry and the chunks it imports statically. */
  readonly bytes: number;
  /** Chunks loaded only when first needed (the Bedrock Runtime and Secrets Manager clients). */
  readonly onDemandBytes: number;
  /** Output paths loaded at init, as the metafile names them. */
  readonly atInit: readonly string[];
  /** Within the DESIGN §6 budget of 250 KB. */
  readonly withinBudget: boolean;
  readonly metafile: Metafile;
}

export const defaultOutputDirectory = path.join(projectRoot, 'dist');

export const allGroups = Object.keys(functionGroups) as FunctionGroup[];

/** Bundles one group's handler into `<outputDirectory>/<group>/index.mjs` (and its chunks) and measures it. */
export const bundleGroup = async (
  group: FunctionGroup,
  outputDirectory = defaultOutputDirectory,
): Promise<BundleResult> => {
  const outfile = path.join(outputDirectory, group, 'index.mjs');
  // The metafile only describes the output; the bundle is the same bytes with or without it.
  const { metafile } = await build({ ...esbuildOptions(group, outfile), metafile: true });
  const chunks = chunksOf(metafile, outfile);
  // The metafile's figure, checked against the file written: a budget must measure what ships.
  const { size } = await stat(outfile);
  if (size !== metafile.outputs[chunks.atInit[0]!]!.bytes) throw new Error(`${outfile}: the metafile disagrees`);
  await assertNoDynamicRequire(metafile);
  await writeExecWrapper(path.dirname(outfile));
  const loaded = chunks.atInitBytes;
  return {
    group,
    outfile,
    bytes: loaded,
    onDemandBytes: chunks.onDemandBytes,
    atInit: chunks.atInit,
    withinBudget: loaded <= bundleSizeLimitBytes,
    metafile,
  };
};

/** Bundles every group in `groups` (all of them by default), one after another. */
export const bundleAll = async (
  groups: readonly FunctionGroup[] = allGroups,
  outputDirectory = defaultOutputDirectory,
): Promise<BundleResult[]> => {
  const results: BundleResult[] = [];
  for (const group of groups) results.push(await bundleGroup(group, outputDirectory));
  return results;
};

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const verdictOf = (result: BundleResult): string =>
  result.withinBudget ? 'ok' : `OVER the ${kilobytes(bundleSizeLimitBytes)} budget`;

const printContents = (result: BundleResult): void => {
  for (const share of bytesByPackage(result.metafile, result.atInit).filter((entry) => entry.bytes >= 1024)) {
    console.log(`    ${kilobytes(share.bytes).padStart(9)}  ${share.name}`);
  }
};

/** Why a cold start could not be measured: the first line of what failed. */
const notMeasured = (what: string) => (error: unknown) =>
  `${what} not measured: ${(error as Error).message.split('\n')[0]}`;

/** The hello-world baseline under the runtime interface client, or why it could not be run. */
export const helloWorldColdStart = (runs = 5): Promise<number | string> =>
  measureHelloWorldColdStart(lambdaLikeEnvironment('hello-world'), runs).catch(notMeasured('cold start'));

/**
 * The cold start of a function that only makes the store client (`store-client-only.ts`), bundled as
 * the groups are, taken in turn with a hello-world's: what every group's cold start carries before
 * any of its own code. A string says why it could not be run.
 */
export const storeClientColdStart = (runs = 5): Promise<PairedColdStart | string> =>
  inTemporaryDirectory('gateway-store-client-only-', async (directory) => {
    const outfile = path.join(directory, 'index.mjs');
    await build(esbuildOptions('models', outfile, path.join(projectRoot, 'infra', 'build', 'store-client-only.ts')));
    return measurePairedColdStart(outfile, lambdaLikeEnvironment('store-client-only'), runs);
  }).catch(notMeasured("the store client's cold start"));

/** A paired cold start as `npm run build` prints it: milliseconds, and the ratio ('!' over budget). */
const describeColdStart = ({ ms, ratio }: PairedColdStart): string =>
  `${ms.toFixed(0)} ms ${ratio.toFixed(2)}×${ratio > coldStartBudgetRatio ? '!' : ' '}`;

const main = async (): Promise<void> => {
  const analyze = process.argv.includes('--analyze');
  const width = Math.max(...allGroups.map((group) => group.length));
  // One run first, to learn whether the runtime interface client runs here at all.
  const helloWorld = await helloWorldColdStart(1);
  const storeClient = typeof helloWorld === 'string' ? helloWorld : await storeClientColdStart();
  console.log(
    `${'group'.padEnd(width)}  ${'size'.padStart(9)}  ${'init'.padStart(8)}  ${'cold start'.padStart(16)}  ` +
      `verdict (budget ${kilobytes(bundleSizeLimitBytes)}, init ${initBudgetMs} ms, cold start ${coldStartBudgetRatio}× hello-world)`,
  );
  // Every group is built and reported, so one failure does not hide the size of the others.
  for (const group of allGroups) {
    let result: BundleResult;
    try {
      result = await bundleGroup(group);
    } catch {
      // esbuild has already printed the errors.
      console.log(`${group.padEnd(width)}  ${'-'.padStart(9)}  ${'-'.padStart(8)}  ${'-'.padStart(16)}  build FAILED`);
      process.exitCode = 1;
      continue;
    }
    if (!result.withinBudget) process.exitCode = 1;
    // Times are reported, not enforced: a timing on a shared machine is too noisy to fail a build on.
    const environment = lambdaLikeEnvironment(`model-gateway-${group}`);
    const init = await measureInit(result.outfile, environment.AWS_LAMBDA_FUNCTION_NAME!).then(
      ({ medianMs }) => `${medianMs.toFixed(0)} ms${medianMs > initBudgetMs ? '!' : ' '}`,
      () => 'FAILED',
    );
    const coldStart =
      typeof helloWorld === 'string'
        ? '-'
        : await measurePairedColdStart(result.outfile, environment).then(describeColdStart, () => 'FAILED');
    if (init === 'FAILED' || coldStart === 'FAILED') process.exitCode = 1;
    const onDemand = result.onDemandBytes > 0 ? ` (+${kilobytes(result.onDemandBytes)} on demand)` : '';
    console.log(
      `${group.padEnd(width)}  ${kilobytes(result.bytes).padStart(9)}  ${init.padStart(8)}  ${coldStart.padStart(16)}  ${verdictOf(result)}${onDemand}`,
    );
    if (analyze) printContents(result);
  }
  console.log(`init: median of 5 imports of the bundle, each in a fresh Node process ('!': over ${initBudgetMs} ms)`);
  console.log(
    typeof helloWorld === 'string'
      ? helloWorld
      : `cold start: median of 5 fresh processes under AWS's runtime interface client, from process start to its ` +
          `first poll for an invocation, as Lambda reports Init Duration; the ratio, the median of each start over ` +
          `a hello-world's started just before it ('!': over ${coldStartBudgetRatio}×)`,
  );
  if (typeof helloWorld !== 'string') {
    console.log(
      typeof storeClient === 'string'
        ? storeClient
        : `the store connection alone (made, no gateway code): ${describeColdStart(storeClient).trimEnd()}, ` +
            `under every group's cold start`,
    );
  }
};

// Run only as a script (`tsx infra/build/bundle.ts`), not when a test imports the functions above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
