/**
 * What a bundle is made of, by package: esbuild's metafile says how many output bytes each input
 * file became, and files are grouped by the npm package they come from (or by folder for ours).
 * `npm run build -- --analyze` prints it; the figures in `bundle-budgets.ts` come from it.
 */
import type { Metafile } from 'esbuild';

export interface PackageShare {
  /** `@aws-sdk/client-dynamodb`, `zod`, or for the gateway's own code `functions/shared/providers`. */
  readonly name: string;
  readonly bytes: number;
}

const NODE_MODULES = 'node_modules/';

/** The package an input belongs to: the innermost `node_modules/<name>` (a nested copy counts as its own). */
const ownerOf = (input: string): string => {
  const at = input.lastIndexOf(NODE_MODULES);
  if (at >= 0) {
    const parts = input.slice(at + NODE_MODULES.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const parts = input.split('/');
  // functions/<group>/…, functions/shared/<concern>/…, infra/build/<file>
  if (parts[0] === 'functions' && parts[1] === 'shared' && parts.length > 3) return parts.slice(0, 3).join('/');
  if (parts[0] === 'functions' && parts.length > 2) return parts.slice(0, 2).join('/');
  return input;
};

/** Output bytes per package over some output files of a bundle (all by default), largest first. */
export const bytesByPackage = (
  metafile: Metafile,
  outputs: readonly string[] = Object.keys(metafile.outputs),
): PackageShare[] => {
  const totals = new Map<string, number>();
  for (const output of outputs) {
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[output]!.inputs)) {
      const name = ownerOf(input);
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
};
