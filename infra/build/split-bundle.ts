/**
 * `tsx infra/build/split-bundle.ts <group> <output directory> [entry]`: writes a group's bundle with code
 * splitting, the entry as `index.mjs` and its chunks beside it. `NodejsFunction` always runs esbuild
 * with `--outfile`, which code splitting cannot use; the stack runs this right after that bundling
 * step, into the same directory, so what is deployed is the split bundle that `npm run build` and the
 * bundle test measure, with the wrapper the function starts through (`exec-wrapper.ts`).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { assertNoDynamicRequire } from './builtins-from-process.js';
import { chunkDirectory, esbuildOptions } from './esbuild-options.js';
import { writeExecWrapper } from './exec-wrapper.js';

/** Writes the bundle; its metafile says what it wrote. */
export const writeSplitBundle = async (group: string, directory: string, entry?: string): Promise<Metafile> => {
  await rm(path.join(directory, chunkDirectory), { recursive: true, force: true });
  const { metafile } = await build({
    ...esbuildOptions(group, path.join(directory, 'index.mjs'), entry),
    metafile: true,
  });
  await assertNoDynamicRequire(metafile);
  await writeExecWrapper(directory);
  return metafile;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [group, directory, entry] = process.argv.slice(2);
  if (!group || !directory)
    throw new Error('usage: tsx infra/build/split-bundle.ts <group> <output directory> [entry]');
  writeSplitBundle(group, directory, entry).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
