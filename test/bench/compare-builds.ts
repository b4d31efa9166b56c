import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { benchCacheRoot, bundledServer, type BundleSources } from './bundled-server.js';
import { pinnedNote, runSideBySide, type Contender, type ContenderFigures, type LoadKind } from './side-by-side.js';
import { startHeapFlags } from './start-heap-flags.js';

/**
 * `npm run bench:compare -- <ref> [<ref>]`: two builds of the gateway side by side, to tell whether a
 * change made it cheaper: the commit `ref` names against the working tree, or against a second ref.
 * A commit's files are taken with `git archive` into the bench's cache inside node_modules, where its
 * imports resolve from the project's packages, and bundled as the working tree is. The builds run
 * once in each start order (`side-by-side.ts`); each figure is the mean of the two.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SLICE = Number(process.env.BENCH_SLICE ?? 1000);
const KINDS: readonly LoadKind[] = ['plain', 'limited', 'stream'];
const GATEWAY = path.join('test', 'bench', 'gateway-process.ts');

const refs = process.argv.slice(2);
if (refs.length < 1 || refs.length > 2) {
  console.error('usage: npm run bench:compare -- <ref> [<ref>]  (a ref against the working tree, or two refs)');
  process.exit(2);
}

/** The sources of the commit `ref` names, taken once per commit. */
const sourcesOf = (ref: string): BundleSources & { commit: string } => {
  const commit = execFileSync('git', ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const root = path.join(benchCacheRoot, 'trees', commit);
  if (!existsSync(path.join(root, 'package.json'))) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    execFileSync('sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, root]);
  }
  return { root, label: `gateway-process-${commit.slice(0, 12)}`, commit };
};

const flags = startHeapFlags();
const contenderOf = async (ref: string | undefined): Promise<Contender> => {
  if (ref === undefined) return { label: 'working tree', bundle: await bundledServer(GATEWAY), flags };
  const sources = sourcesOf(ref);
  return { label: `${ref} (${sources.commit.slice(0, 8)})`, bundle: await bundledServer(GATEWAY, sources), flags };
};
const [before, after] = [await contenderOf(refs[0]), await contenderOf(refs[1])];

const options = { rounds: ROUNDS, slice: SLICE, kinds: KINDS };
const runs = [await runSideBySide([before, after], options), await runSideBySide([after, before], options)];
const mean = (contender: Contender, read: (figures: ContenderFigures) => number): number =>
  runs.reduce((sum, run) => sum + read(run.find((figures) => figures.contender === contender)!), 0) / runs.length;

console.log(
  `Builds side by side: ${ROUNDS} rounds of ${SLICE} calls per kind (plain and limited at c=32, streams at ` +
    `c=16), once in each start order, ${pinnedNote}\n`,
);
console.log(
  '| build | CPU per request | with rate limit + quota | CPU per stream | stream first byte p50 |\n|---|---|---|---|---|',
);
for (const contender of [before, after]) {
  const micros = (kind: LoadKind) => `${mean(contender, (figures) => figures.cpuMicros[kind]!).toFixed(1)} µs`;
  const firstByte = mean(contender, (figures) => figures.streamFirstByteMs);
  console.log(
    `| ${contender.label} | ${micros('plain')} | ${micros('limited')} | ${micros('stream')} | ${firstByte.toFixed(2)} ms |`,
  );
}
const change = (kind: LoadKind) => {
  const was = mean(before, (figures) => figures.cpuMicros[kind]!);
  const is = mean(after, (figures) => figures.cpuMicros[kind]!);
  return `${kind} ${is >= was ? '+' : ''}${(((is - was) / was) * 100).toFixed(1)} %`;
};
console.log(`\n${after.label} against ${before.label}: ${KINDS.map(change).join(', ')}`);
process.exit(0);
