import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time and peak memory of another process, read from /proc (Linux), and CPU pinning. */

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU of a process in microseconds, in clock ticks (fields 14 and 15 of /proc/PID/stat). */
const tickedCpuMicros = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond) * 1e6;
};

/** One thread's CPU time in nanoseconds: the first field of /proc/PID/task/TID/schedstat (NaN if unreadable). */
const threadRanNanoseconds = (pid: number, thread: number | string): number =>
  Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);

/**
 * The CPU time of every thread of a process, in microseconds; undefined where the kernel does not
 * keep it. /proc/PID/stat counts in clock ticks (10 ms here): a slice of a thousand requests at
 * 0.09 ms each is 90 ms of CPU, read to ±10 % from ticks, and the floor's small figure divides every
 * ratio.
 */
const scheduledCpuMicros = (pid: number): number | undefined => {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      const ran = threadRanNanoseconds(pid, thread);
      if (!Number.isFinite(ran)) return undefined;
      nanoseconds += ran;
    }
    return nanoseconds / 1000;
  } catch {
    return undefined;
  }
};

/**
 * The CPU time of a process's main thread alone, in microseconds (NaN where the kernel does not keep
 * it): what the process spent beside it ran on V8's and libuv's threads (compiling, concurrent marking).
 */
export const mainThreadCpuMicros = (pid: number): number => {
  try {
    return threadRanNanoseconds(pid, pid) / 1000;
  } catch {
    return Number.NaN;
  }
};

/** User + system CPU of a process (all its threads) in microseconds. */
export const cpuMicros = (pid: number): number => scheduledCpuMicros(pid) ?? tickedCpuMicros(pid);

/** The peak resident set of a process so far, in MB (VmHWM). */
export const peakRssMb = (pid: number): number => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
};

/** Resets the peak resident set (writing 5 to clear_refs), so that a figure covers one phase. */
export const resetPeakRss = (pid: number): void => {
  try {
    execFileSync('sh', ['-c', `echo 5 > /proc/${pid}/clear_refs`]);
  } catch {
    // Not permitted here: the peak then covers the whole run, which only overstates it.
  }
};

export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** Pins a running process, every thread of it, to one CPU, when taskset is there. */
export const pin = (pid: number, cpu: number): void => {
  if (hasTaskset) spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
};
