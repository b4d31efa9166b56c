import { median } from '../../infra/build/bundle-runner.js';

/**
 * What the Lambda bench measures for one function at one memory size, and the table it prints: one
 * row per memory size, the hello-world handler's figures in brackets beside the function's.
 */

/** Figures of one instance of a function (or of the hello-world handler) at one memory size. */
export interface InstanceFigures {
  /** Median of the fresh instances' `Init Duration`, in ms. */
  readonly initMs: number;
  /** cgroup CPU time per invocation over an instance's first invocations (the warm-up), in ms. */
  readonly warmUpCpuPerInvocationMs: number;
  /** Invocation time of requests paced 50 ms apart (delivery to the response's last byte), in ms. */
  readonly pacedP50Ms: number;
  readonly pacedP99Ms: number;
  /** Billed duration of those requests: delivery to the runtime's next poll, median, in ms. */
  readonly billedP50Ms: number;
  /** Delivery to a stream's first body byte, median, in ms (streaming functions only). */
  readonly streamFirstByteMs?: number;
  /** A 1 MB prompt, delivery to the response's last byte, median, in ms (chat only). */
  readonly largePromptMs?: number;
  /**
   * cgroup CPU time per invocation over back-to-back invocations of the warm instance, in ms: the
   * median of windows of 25 (`lambda-measure.ts` says why). The host's speed drifts over minutes, so
   * the instances compared (the function, hello, the relay floor) take their windows alternately,
   * one of each per round, and what the function costs beyond hello is the median of the rounds'
   * differences (`cpuBeyond`), not the difference of the two medians.
   */
  readonly cpuPerInvocationMs: number;
  /** The same over all of them, in ms. */
  readonly cpuPerInvocationMeanMs: number;
  /**
   * Each back-to-back window's cgroup CPU time per invocation, in ms, in the order taken: window i
   * of instances measured together was taken in the same round, so they can be paired.
   */
  readonly cpuWindowsMs: readonly number[];
  /** Back-to-back invocations per second, over the time the instance's own windows took. */
  readonly backToBackPerSecond: number;
  /** The cgroup's peak memory, in MB. */
  readonly peakMemoryMb: number;
  /** Invocations answered with another status than expected, or reported as errors. */
  readonly errors: number;
  readonly oomKills: number;
}

/** One memory size's row: the function's figures, hello's, and the upstream's own latency beside them. */
export interface SizeRow {
  readonly memoryMb: number;
  readonly cpuShare: number;
  readonly fn: InstanceFigures;
  /** The hello-world handler, measured beside the function: their back-to-back windows alternate. */
  readonly hello: InstanceFigures;
  /** The chat group only: a minimal relay with the same I/O (`relay-floor.mjs`), run the same way. */
  readonly floor?: InstanceFigures;
  /** The fake upstream's own latency at the same pace, asked directly: what the function adds is over it. */
  readonly upstream: { readonly p50Ms: number; readonly p99Ms: number; readonly firstByteMs: number };
}

/** What a paced request adds over the upstream's own time, p50 and p99. */
export const addedLatency = (row: SizeRow) => ({
  p50Ms: row.fn.pacedP50Ms - row.upstream.p50Ms,
  p99Ms: row.fn.pacedP99Ms - row.upstream.p99Ms,
  firstByteMs: row.fn.streamFirstByteMs === undefined ? undefined : row.fn.streamFirstByteMs - row.upstream.firstByteMs,
});

/**
 * The CPU an invocation of `instance` costs beyond one of `hello`'s, in ms. When both have as many
 * windows, taken alternately round by round, it is the median over rounds of the instance's window
 * less hello's: each pair saw the host in the same phase of its drifting speed. Otherwise (no
 * windows, or not as many) it is the difference of their medians.
 */
export const cpuBeyond = (instance: InstanceFigures, hello: InstanceFigures): number => {
  const windows = instance.cpuWindowsMs;
  const hellos = hello.cpuWindowsMs;
  return windows.length > 0 && windows.length === hellos.length
    ? median(windows.map((window, round) => window - hellos[round]!))
    : instance.cpuPerInvocationMs - hello.cpuPerInvocationMs;
};

/** The CPU an invocation of the function costs beyond one of hello's (`cpuBeyond`). */
export const cpuBeyondHello = (row: SizeRow): number => cpuBeyond(row.fn, row.hello);

const ms = (value: number, digits = 1) =>
  `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ms`;
const signed = (value: number) => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(1)}`;
const rate = (value: number) => Math.round(value).toLocaleString('en-US');

export const TABLE_HEADER =
  '| memory | CPU share | init (hello) | added p50 / p99, paced | stream first byte | 1 MB prompt | CPU per invocation (hello) | warming CPU per invocation (hello) | billed p50 (hello) | back-to-back req/s (hello) | peak memory | errors / OOM |';

/** One row of the table, as markdown. */
export const tableRow = (row: SizeRow): string => {
  const added = addedLatency(row);
  const cells = [
    `${row.memoryMb.toLocaleString('en-US')} MB`,
    row.cpuShare.toFixed(3),
    `${ms(row.fn.initMs, 0)} (${Math.round(row.hello.initMs)})`,
    `${signed(added.p50Ms)} / ${signed(added.p99Ms)} ms`,
    added.firstByteMs === undefined ? '–' : `${signed(added.firstByteMs)} ms`,
    row.fn.largePromptMs === undefined ? '–' : ms(row.fn.largePromptMs, 0),
    `${ms(row.fn.cpuPerInvocationMs, 2)} (${row.hello.cpuPerInvocationMs.toFixed(2)})`,
    `${ms(row.fn.warmUpCpuPerInvocationMs, 2)} (${row.hello.warmUpCpuPerInvocationMs.toFixed(2)})`,
    `${ms(row.fn.billedP50Ms)} (${row.hello.billedP50Ms.toFixed(1)})`,
    `${rate(row.fn.backToBackPerSecond)} (${rate(row.hello.backToBackPerSecond)})`,
    `${Math.round(row.fn.peakMemoryMb)} MB`,
    `${row.fn.errors} / ${row.fn.oomKills}`,
  ];
  return `| ${cells.join(' | ')} |`;
};

export const table = (rows: readonly SizeRow[]): string =>
  [TABLE_HEADER, `|${'---|'.repeat(TABLE_HEADER.split('|').length - 2)}`, ...rows.map(tableRow)].join('\n');

/** The targets a memory size must meet to be chosen (issue 49): what a user could not notice. */
export const TARGETS = { addedP50Ms: 2, addedP99Ms: 20, firstByteMs: 2, largePromptMs: 300 } as const;

/** Whether a row meets every target, and which it misses. */
export const missedTargets = (row: SizeRow): string[] => {
  const added = addedLatency(row);
  const missed: string[] = [];
  if (added.p50Ms > TARGETS.addedP50Ms) missed.push(`added p50 ${added.p50Ms.toFixed(1)} ms`);
  if (added.p99Ms > TARGETS.addedP99Ms) missed.push(`added p99 ${added.p99Ms.toFixed(1)} ms`);
  if (added.firstByteMs !== undefined && added.firstByteMs > TARGETS.firstByteMs)
    missed.push(`first byte ${added.firstByteMs.toFixed(1)} ms`);
  if (row.fn.largePromptMs !== undefined && row.fn.largePromptMs > TARGETS.largePromptMs)
    missed.push(`1 MB prompt ${Math.round(row.fn.largePromptMs)} ms`);
  if (row.fn.oomKills > 0) missed.push(`${row.fn.oomKills} OOM kills`);
  if (row.fn.errors > 0) missed.push(`${row.fn.errors} errors`);
  return missed;
};

/** The smallest memory size whose row meets every target, if any does. */
export const chosenSize = (rows: readonly SizeRow[]): number | undefined =>
  [...rows].sort((a, b) => a.memoryMb - b.memoryMb).find((row) => missedTargets(row).length === 0)?.memoryMb;
