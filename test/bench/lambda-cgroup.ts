/**
 * A cgroup sized like a Lambda memory setting: the memory limit is the setting, and the CPU quota is
 * the setting's share of one core (Lambda gives a full vCPU at 1,769 MB, in proportion below it),
 * enforced per 100 ms period. Both cgroup versions: v1 (`cpu.cfs_quota_us`, `memory.limit_in_bytes`,
 * `cpuacct.usage`, `memory.max_usage_in_bytes`, `memory.oom_control`) and v2 (`cpu.max`, `memory.max`,
 * `cpu.stat`, `memory.peak`, `memory.events`). Making one needs root.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The memory at which a Lambda function has one full vCPU (Lambda developer guide, "Memory and computing power"). */
export const MB_PER_VCPU = 1769;
/** The CFS period the quota is spent in. */
export const CFS_PERIOD_US = 100_000;

/** The share of one core a memory size buys, capped at one core. */
export const cpuShareOf = (memoryMb: number): number => Math.min(1, memoryMb / MB_PER_VCPU);

/** Microseconds of CPU per 100 ms period (v1 `cpu.cfs_quota_us`, the first field of v2 `cpu.max`). */
export const cpuQuotaUsOf = (memoryMb: number): number => Math.round(CFS_PERIOD_US * cpuShareOf(memoryMb));

export const memoryLimitBytesOf = (memoryMb: number): number => memoryMb * 1024 * 1024;

/** The count a `memory.oom_control` (v1) or `memory.events` (v2) file gives for `oom_kill`. */
export const oomKillsIn = (text: string): number => Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);

/** v2 `cpu.stat`'s `usage_usec`, in nanoseconds as v1's `cpuacct.usage` has it. */
export const cpuNanosFromCpuStat = (text: string): number => Number(/^usage_usec (\d+)$/m.exec(text)?.[1] ?? 0) * 1000;

/** Which cgroup files this host offers, or why it offers none the bench can use. */
export type CgroupSupport =
  | { readonly version: 1; readonly cpu: string; readonly cpuacct: string; readonly memory: string }
  | { readonly version: 2; readonly root: string }
  | { readonly version: undefined; readonly reason: string };

export const cgroupSupport = (root = '/sys/fs/cgroup'): CgroupSupport => {
  if (process.getuid?.() !== 0) return { version: undefined, reason: 'not root: making a cgroup needs root' };
  const cpu = path.join(root, 'cpu');
  const memory = path.join(root, 'memory');
  if (existsSync(path.join(cpu, 'cpu.cfs_quota_us')) && existsSync(path.join(memory, 'memory.limit_in_bytes'))) {
    // cpuacct is either mounted with cpu (`cpu,cpuacct`) or on its own.
    const cpuacct = existsSync(path.join(cpu, 'cpuacct.usage')) ? cpu : path.join(root, 'cpuacct');
    if (existsSync(path.join(cpuacct, 'cpuacct.usage'))) return { version: 1, cpu, cpuacct, memory };
  }
  const controllers = path.join(root, 'cgroup.controllers');
  if (existsSync(controllers)) {
    const offered = readFileSync(controllers, 'utf8').split(/\s+/);
    if (offered.includes('cpu') && offered.includes('memory')) return { version: 2, root };
  }
  return { version: undefined, reason: `no cpu and memory controllers under ${root}` };
};

/** One cgroup of a memory size, made for one process and removed after it. */
export interface Cgroup {
  /** The `cgroup.procs` files a process joins, each in turn. */
  readonly procsFiles: readonly string[];
  /** CPU time its processes spent, in nanoseconds. */
  cpuNanos(): number;
  /** The most memory it held, in bytes (page cache included, as Lambda's limit counts it). */
  peakBytes(): number;
  /** The memory it holds now, in bytes, counted the same way. */
  usageBytes(): number;
  oomKills(): number;
  remove(): void;
}

const read = (file: string) => readFileSync(file, 'utf8');

export const makeCgroup = (
  support: Exclude<CgroupSupport, { version: undefined }>,
  name: string,
  memoryMb: number,
): Cgroup => {
  const quota = cpuQuotaUsOf(memoryMb);
  const limit = memoryLimitBytesOf(memoryMb);
  if (support.version === 1) {
    const directories = [...new Set([support.cpu, support.cpuacct, support.memory])].map((parent) =>
      path.join(parent, name),
    );
    for (const directory of directories) mkdirSync(directory, { recursive: true });
    const [cpu, cpuacct, memory] = [support.cpu, support.cpuacct, support.memory].map((parent) =>
      path.join(parent, name),
    ) as [string, string, string];
    writeFileSync(path.join(cpu, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
    writeFileSync(path.join(cpu, 'cpu.cfs_quota_us'), String(quota));
    writeFileSync(path.join(memory, 'memory.limit_in_bytes'), String(limit));
    // With swap, a process over the limit would page out instead of being killed, as Lambda kills it.
    const swapLimit = path.join(memory, 'memory.memsw.limit_in_bytes');
    if (existsSync(swapLimit)) writeFileSync(swapLimit, String(limit));
    return {
      procsFiles: directories.map((directory) => path.join(directory, 'cgroup.procs')),
      cpuNanos: () => Number(read(path.join(cpuacct, 'cpuacct.usage'))),
      peakBytes: () => Number(read(path.join(memory, 'memory.max_usage_in_bytes'))),
      usageBytes: () => Number(read(path.join(memory, 'memory.usage_in_bytes'))),
      oomKills: () => oomKillsIn(read(path.join(memory, 'memory.oom_control'))),
      remove: () => {
        for (const directory of directories) rmdirSync(directory);
      },
    };
  }
  // v2: the parent must hand its children the cpu and memory controllers.
  writeFileSync(path.join(support.root, 'cgroup.subtree_control'), '+cpu +memory');
  const directory = path.join(support.root, name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`);
  writeFileSync(path.join(directory, 'memory.max'), String(limit));
  const swapMax = path.join(directory, 'memory.swap.max');
  if (existsSync(swapMax)) writeFileSync(swapMax, '0');
  return {
    procsFiles: [path.join(directory, 'cgroup.procs')],
    cpuNanos: () => cpuNanosFromCpuStat(read(path.join(directory, 'cpu.stat'))),
    peakBytes: () => Number(read(path.join(directory, 'memory.peak'))),
    usageBytes: () => Number(read(path.join(directory, 'memory.current'))),
    oomKills: () => oomKillsIn(read(path.join(directory, 'memory.events'))),
    remove: () => rmdirSync(directory),
  };
};
