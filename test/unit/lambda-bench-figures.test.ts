import fc from 'fast-check';
import {
  cpuNanosFromCpuStat,
  cpuQuotaUsOf,
  cpuShareOf,
  memoryLimitBytesOf,
  oomKillsIn,
} from '../../test/bench/lambda-cgroup.js';
import { heapFlagsOf } from '../../test/bench/lambda-sandbox.js';
import {
  addedLatency,
  chosenSize,
  cpuBeyond,
  cpuBeyondHello,
  missedTargets,
  table,
  tableRow,
  type InstanceFigures,
  type SizeRow,
} from '../../test/bench/lambda-table.js';

/** The Lambda bench's arithmetic: cgroup files from a memory size, its readings, and the table it prints. */

describe('the cgroup of a memory size', () => {
  it('gives the CPU share Lambda gives: a full core at 1,769 MB, in proportion below, never more than one', () => {
    expect(cpuQuotaUsOf(1769)).toBe(100_000);
    expect(cpuQuotaUsOf(128)).toBe(7236);
    expect(cpuQuotaUsOf(256)).toBe(14_471);
    expect(cpuQuotaUsOf(1024)).toBe(57_886);
    expect(cpuQuotaUsOf(10_240)).toBe(100_000);
    fc.assert(
      fc.property(fc.integer({ min: 128, max: 10_240 }), fc.integer({ min: 128, max: 10_240 }), (a, b) => {
        expect(cpuShareOf(a)).toBeLessThanOrEqual(1);
        if (a <= b) expect(cpuQuotaUsOf(a)).toBeLessThanOrEqual(cpuQuotaUsOf(b));
      }),
    );
  });

  it('limits memory to the size in bytes', () => {
    expect(memoryLimitBytesOf(128)).toBe(134_217_728);
  });

  it('reads OOM kills from v1 memory.oom_control and v2 memory.events', () => {
    expect(oomKillsIn('oom_kill_disable 0\nunder_oom 0\noom_kill 3\n')).toBe(3);
    expect(oomKillsIn('low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n')).toBe(2);
    expect(oomKillsIn('oom_kill_disable 0\nunder_oom 0\n')).toBe(0);
  });

  it('reads v2 cpu.stat in the nanoseconds v1 cpuacct.usage counts', () => {
    expect(cpuNanosFromCpuStat('usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n')).toBe(1_500_000);
  });

  it('sizes V8 as the managed runtime does: a tenth for the young generation, the rest old', () => {
    expect(heapFlagsOf(128)).toEqual(['--max-semi-space-size=6', '--max-old-space-size=116']);
    expect(heapFlagsOf(1024)).toEqual(['--max-semi-space-size=51', '--max-old-space-size=922']);
  });
});

const figures = (overrides: Partial<InstanceFigures> = {}): InstanceFigures => ({
  initMs: 150,
  warmUpCpuPerInvocationMs: 3.1,
  pacedP50Ms: 3,
  pacedP99Ms: 8,
  billedP50Ms: 3.2,
  streamFirstByteMs: 2.5,
  largePromptMs: 120,
  cpuPerInvocationMs: 2.4,
  cpuPerInvocationMeanMs: 2.6,
  cpuWindowsMs: [],
  backToBackPerSecond: 74.4,
  peakMemoryMb: 38.2,
  errors: 0,
  oomKills: 0,
  ...overrides,
});

const row = (memoryMb: number, fn: Partial<InstanceFigures> = {}, hello: Partial<InstanceFigures> = {}): SizeRow => ({
  memoryMb,
  cpuShare: cpuShareOf(memoryMb),
  fn: figures(fn),
  hello: figures({
    initMs: 80,
    cpuPerInvocationMs: 0.96,
    warmUpCpuPerInvocationMs: 1.2,
    backToBackPerSecond: 335,
    billedP50Ms: 1,
    ...hello,
  }),
  upstream: { p50Ms: 1, p99Ms: 2, firstByteMs: 1 },
});

describe('the table', () => {
  it('prints what is added over the upstream, and hello’s figures in brackets', () => {
    expect(tableRow(row(1024))).toBe(
      '| 1,024 MB | 0.579 | 150 ms (80) | +2.0 / +6.0 ms | +1.5 ms | 120 ms | 2.40 ms (0.96) | 3.10 ms (1.20) | 3.2 ms (1.0) | 74 (335) | 38 MB | 0 / 0 |',
    );
  });

  it('has as many columns in its separator and rows as in its header', () => {
    const [header, separator, ...rows] = table([row(128), row(256)]).split('\n');
    const columns = (line: string) => line.split('|').length;
    expect(columns(separator!)).toBe(columns(header!));
    for (const line of rows) expect(columns(line)).toBe(columns(header!));
  });

  it('signs a figure below the upstream’s own as negative', () => {
    expect(addedLatency(row(256, { pacedP50Ms: 0.5 })).p50Ms).toBe(-0.5);
    expect(tableRow(row(256, { pacedP50Ms: 0.5 }))).toContain('| −0.5 / +6.0 ms |');
  });
});

describe('the CPU beyond hello', () => {
  // The host slows down in the second and fourth rounds, for both instances alike.
  const fnWindows = { cpuPerInvocationMs: 2.5, cpuWindowsMs: [2.0, 3.0, 2.5, 4.0, 2.2] };
  const helloWindows = { cpuPerInvocationMs: 0.7, cpuWindowsMs: [0.5, 2.0, 0.6, 2.9, 0.7] };

  it('is the median of the rounds’ differences when the windows were taken in pairs', () => {
    // Differences 1.5, 1.0, 1.9, 1.1, 1.5; the difference of the medians would be 2.5 − 0.7 = 1.8.
    expect(cpuBeyondHello(row(256, fnWindows, helloWindows))).toBeCloseTo(1.5, 10);
  });

  it('is the difference of the medians without windows, or with not as many on each side', () => {
    expect(cpuBeyondHello(row(256, { cpuPerInvocationMs: 2.5 }, { cpuPerInvocationMs: 0.7 }))).toBeCloseTo(1.8, 10);
    const fewer = { ...helloWindows, cpuWindowsMs: helloWindows.cpuWindowsMs.slice(0, 4) };
    expect(cpuBeyondHello(row(256, fnWindows, fewer))).toBeCloseTo(1.8, 10);
    expect(cpuBeyondHello(row(256, { ...fnWindows, cpuWindowsMs: [] }, helloWindows))).toBeCloseTo(1.8, 10);
  });

  it('is figured the same way for the relay floor', () => {
    const floor = figures({ cpuPerInvocationMs: 1.1, cpuWindowsMs: [1.0, 2.6, 1.1, 3.4, 1.0] });
    // Differences 0.5, 0.6, 0.5, 0.5, 0.3; the difference of the medians would be 1.1 − 0.7 = 0.4.
    expect(cpuBeyond(floor, figures(helloWindows))).toBeCloseTo(0.5, 10);
    expect(cpuBeyond({ ...floor, cpuWindowsMs: [] }, figures(helloWindows))).toBeCloseTo(0.4, 10);
  });
});

describe('the memory size chosen', () => {
  it('is the smallest size that meets every target', () => {
    const rows = [row(512), row(128, { pacedP99Ms: 45 }), row(256), row(1024)];
    expect(missedTargets(rows[1]!)).toEqual(['added p99 43.0 ms']);
    expect(chosenSize(rows)).toBe(256);
  });

  it('is none when an OOM kill, an error, a slow first byte or a slow large prompt stands in every size', () => {
    const rows = [
      row(128, { oomKills: 1 }),
      row(256, { errors: 2 }),
      row(512, { streamFirstByteMs: 3.5 }),
      row(1024, { largePromptMs: 301 }),
    ];
    expect(rows.map((each) => missedTargets(each))).toEqual([
      ['1 OOM kills'],
      ['2 errors'],
      ['first byte 2.5 ms'],
      ['1 MB prompt 301 ms'],
    ]);
    expect(chosenSize(rows)).toBeUndefined();
  });
});
