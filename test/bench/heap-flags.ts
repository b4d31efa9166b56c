import path from 'node:path';
import { bundledServer } from './bundled-server.js';
import { pinnedNote, runSideBySide } from './side-by-side.js';
import { startHeapFlags } from './start-heap-flags.js';

/**
 * `npm run bench:heap`: V8 heap flags for the local runtime, compared side by side. One bundled
 * gateway per set of flags (`BENCH_HEAP_VARIANTS`, sets separated by `|`; by default `npm start`'s,
 * V8's own, and 8 MB and 16 MB semi-spaces) under the same 32-way load, for a plain key and for one
 * with a rate limit and a quota (`side-by-side.ts`). Prints the CPU per request of each and its peak
 * RSS under that load.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SLICE = Number(process.env.BENCH_SLICE ?? 1000);

const startFlags = startHeapFlags();
const variants = (
  process.env.BENCH_HEAP_VARIANTS ??
  [
    startFlags.join(' '),
    '',
    ...[8, 16].map((megabytes) =>
      startFlags
        .map((flag) => flag.replace(/^--max-semi-space-size=\d+$/, `--max-semi-space-size=${megabytes}`))
        .join(' '),
    ),
  ].join('|')
)
  .split('|')
  .map((flags) => flags.split(' ').filter(Boolean));

const bundle = await bundledServer(path.join('test', 'bench', 'gateway-process.ts'));
const figures = await runSideBySide(
  variants.map((flags) => ({ label: flags.join(' ') || "V8's defaults", bundle, flags })),
  { rounds: ROUNDS, slice: SLICE, kinds: ['plain', 'limited'] },
);

console.log(`V8 heap flags side by side: ${ROUNDS} rounds of ${SLICE} requests per key at c=32, ${pinnedNote}\n`);
console.log('| flags | CPU per request | with rate limit + quota | peak RSS under 32-way load |\n|---|---|---|---|');
const micros = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(0)} µs`;
for (const { contender, cpuMicros, peakRssMb } of figures) {
  const isStart = contender.flags.join(' ') === startFlags.join(' ');
  console.log(
    `| ${contender.label}${isStart ? ' (`npm start`)' : ''} | ${micros(cpuMicros.plain)} | ${micros(cpuMicros.limited)} | ` +
      `${peakRssMb.toFixed(0)} MB |`,
  );
}
process.exit(0);
