/**
 * `npm run build`: bundles every endpoint group's handler with the same esbuild options the CDK
 * stack deploys, writes `dist/<group>/index.mjs`, prints each size, and fails when one is over the
 * DESIGN §6 budget.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { functionGroups } from '../../functions/shared/routes.js';
import { bundleSizeLimitBytes, esbuildOptions, functionEntry, projectRoot } from './esbuild-options.js';

export interface BundleResult {
  readonly group: string;
  readonly outfile: string;
  readonly bytes: number;
  readonly withinBudget: boolean;
}

export const defaultOutputDirectory = path.join(projectRoot, 'dist');

/** Bundles one group's handler into `<outputDirectory>/<group>/index.mjs` and measures it. */
export const bundleGroup = async (group: string, outputDirectory = defaultOutputDirectory): Promise<BundleResult> => {
  const outfile = path.join(outputDirectory, group, 'index.mjs');
  await build(esbuildOptions(functionEntry(group), outfile));
  const { size } = await stat(outfile);
  return { group, outfile, bytes: size, withinBudget: size <= bundleSizeLimitBytes };
};

/** Bundles every group in `groups` (all of them by default), one after another. */
export const bundleAll = async (
  groups: readonly string[] = Object.keys(functionGroups),
  outputDirectory = defaultOutputDirectory,
): Promise<BundleResult[]> => {
  const results: BundleResult[] = [];
  for (const group of groups) results.push(await bundleGroup(group, outputDirectory));
  return results;
};

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const main = async (): Promise<void> => {
  const groups = Object.keys(functionGroups);
  const width = Math.max(...groups.map((group) => group.length));
  // Every group is built and reported, so one failure does not hide the size of the others.
  for (const group of groups) {
    try {
      const result = await bundleGroup(group);
      const verdict = result.withinBudget ? 'ok' : `OVER the ${kilobytes(bundleSizeLimitBytes)} budget`;
      console.log(`${group.padEnd(width)}  ${kilobytes(result.bytes).padStart(9)}  ${verdict}`);
      if (!result.withinBudget) process.exitCode = 1;
    } catch {
      // esbuild has already printed the errors.
      console.log(`${group.padEnd(width)}  ${'-'.padStart(9)}  build FAILED`);
      process.exitCode = 1;
    }
  }
};

// Run only as a script (`tsx infra/build/bundle.ts`), not when a test imports the functions above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
