/**
 * A bundle is an entry file and the chunks code splitting made. What a cold start reads and
 * evaluates is the entry and every chunk it imports statically, transitively; a chunk reached only
 * through a dynamic `import()` is loaded when the code first needs it. Bundle budgets are about the
 * first: that is what every invocation's init pays for.
 */
import path from 'node:path';
import type { Metafile } from 'esbuild';

export interface BundleChunks {
  /** Output paths (as the metafile names them) loaded at init: the entry first. */
  readonly atInit: readonly string[];
  /** Output paths loaded only when first needed. */
  readonly onDemand: readonly string[];
  readonly atInitBytes: number;
  readonly onDemandBytes: number;
}

/**
 * The metafile's key (relative to the working directory) of the entry file `outfile`; chunks of
 * dynamic imports are entry points to esbuild too, so the entry is found by its path.
 */
export const entryOutputOf = (metafile: Metafile, outfile: string): string => {
  const entry = Object.keys(metafile.outputs).find((output) => path.resolve(output) === path.resolve(outfile));
  if (!entry) throw new Error(`${outfile} is not among the bundle's outputs`);
  return entry;
};

/** Splits a bundle's outputs into what init loads (static imports from the entry `outfile`) and the rest. */
export const chunksOf = (metafile: Metafile, outfile: string): BundleChunks => {
  const entry = entryOutputOf(metafile, outfile);
  const atInit = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (atInit.has(next) || !metafile.outputs[next]) continue;
    atInit.add(next);
    for (const imported of metafile.outputs[next].imports)
      if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
  }
  const onDemand = Object.keys(metafile.outputs).filter((output) => !atInit.has(output));
  const bytesOf = (outputs: Iterable<string>) =>
    [...outputs].reduce((sum, output) => sum + metafile.outputs[output]!.bytes, 0);
  return { atInit: [...atInit], onDemand, atInitBytes: bytesOf(atInit), onDemandBytes: bytesOf(onDemand) };
};
