/**
 * Measures one function (or the hello-world handler) at one memory size: fresh instances for
 * `Init Duration`; on one instance, the CPU its first invocations cost (V8 compiles while it warms);
 * then, warm, requests paced 50 ms apart, streams, 1 MB prompts and back-to-back invocations, with
 * the cgroup's CPU accounting and peak memory.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../../infra/build/bundle-runner.js';
import type { CgroupSupport } from './lambda-cgroup.js';
import type { GroupEvents } from './lambda-events.js';
import type { Invocation } from './lambda-runtime-api.js';
import { startSandbox, type Sandbox } from './lambda-sandbox.js';
import type { InstanceFigures } from './lambda-table.js';
import { percentile } from './http-client.js';

export interface MeasureCounts {
  /** Fresh instances whose init is timed (the measured instance is the first). */
  readonly initRuns: number;
  /**
   * Invocations before the warm figures are taken, as an environment that has served for some
   * seconds has had: their CPU is reported on its own, as what warming costs.
   */
  readonly warmUp: number;
  readonly paced: number;
  readonly paceMs: number;
  readonly streams: number;
  readonly largePrompts: number;
  readonly backToBack: number;
}

export const defaultCounts: MeasureCounts = {
  initRuns: Number(process.env.BENCH_LAMBDA_INIT_RUNS ?? 3),
  warmUp: Number(process.env.BENCH_LAMBDA_WARM_UP ?? 300),
  paced: Number(process.env.BENCH_LAMBDA_PACED ?? 200),
  paceMs: 50,
  streams: Number(process.env.BENCH_LAMBDA_STREAMS ?? 10),
  largePrompts: 3,
  backToBack: Number(process.env.BENCH_LAMBDA_BACK_TO_BACK ?? 200),
};

export interface InstanceSpec {
  readonly support: Exclude<CgroupSupport, { version: undefined }>;
  readonly memoryMb: number;
  readonly outfile: string;
  readonly environment: NodeJS.ProcessEnv;
  readonly events: GroupEvents;
}

const MB = 1024 * 1024;

/** Back-to-back invocations per CPU window. */
const CPU_WINDOW = 25;

/** Hands `event` to the instance, counting an error when it is not answered with `status`. */
const invoker =
  (sandbox: Sandbox, status: number, errors: { count: number; first?: string }) => async (event: unknown) => {
    let invocation: Invocation;
    try {
      invocation = await sandbox.invoke(event);
    } catch (error) {
      errors.count += 1;
      errors.first ??= (error as Error).message;
      return undefined;
    }
    if (invocation.error || invocation.statusCode !== status) {
      errors.count += 1;
      errors.first ??= `${invocation.error ?? invocation.statusCode}: ${invocation.body.toString('utf8').slice(0, 300)}`;
      return undefined;
    }
    return invocation;
  };

export const measureInstance = async (
  spec: InstanceSpec,
  counts: MeasureCounts = defaultCounts,
): Promise<InstanceFigures & { firstError?: string }> => {
  const { events } = spec;
  const sandbox = await startSandbox({ ...spec });
  const inits = [sandbox.initMs];
  const errors = { count: 0, first: undefined as string | undefined };
  const invoke = invoker(sandbox, events.status, errors);
  const durations = (list: readonly (Invocation | undefined)[], of: (invocation: Invocation) => number) =>
    list.filter((invocation): invocation is Invocation => invocation !== undefined).map(of);
  let figures: InstanceFigures;
  try {
    // Warming: the other kinds first (a route's module loads on its first request), then the everyday one.
    const warmFrom = sandbox.cgroup.cpuNanos();
    for (let index = 0; index < 5 && events.stream; index += 1) await invoke(events.stream);
    if (events.large) await invoke(events.large);
    for (let index = 0; index < counts.warmUp; index += 1) await invoke(events.whole);
    const warmUpCpuMs = (sandbox.cgroup.cpuNanos() - warmFrom) / 1e6;

    // Paced: one request every 50 ms, each alone on the instance, as a function sees a steady trickle.
    const paced: (Invocation | undefined)[] = [];
    for (let index = 0; index < counts.paced; index += 1) {
      const started = performance.now();
      paced.push(await invoke(events.whole));
      await sleep(Math.max(0, counts.paceMs - (performance.now() - started)));
    }
    const streams: (Invocation | undefined)[] = [];
    if (events.stream)
      for (let index = 0; index < counts.streams; index += 1) {
        streams.push(await invoke(events.stream));
        await sleep(counts.paceMs);
      }
    const large: (Invocation | undefined)[] = [];
    if (events.large)
      for (let index = 0; index < counts.largePrompts; index += 1) large.push(await invoke(events.large));

    // Back to back: the cgroup's CPU time over invocations that follow each other at once, taken in
    // windows. The figure is the median window's: on a virtualized host, stretches of a few hundred
    // invocations cost several times the CPU when the host is busy (the kernel's work of waking the
    // local peers a function writes to, the store stand-in and the upstream, which on Lambda are
    // across the network). The mean is kept beside it.
    const windows: number[] = [];
    const cpuBefore = sandbox.cgroup.cpuNanos();
    const started = performance.now();
    for (let index = 0, windowFrom = cpuBefore; index < counts.backToBack; index += 1) {
      await invoke(events.whole);
      if ((index + 1) % CPU_WINDOW === 0 || index + 1 === counts.backToBack) {
        const now = sandbox.cgroup.cpuNanos();
        windows.push((now - windowFrom) / 1e6 / ((index % CPU_WINDOW) + 1));
        windowFrom = now;
      }
    }
    const elapsedMs = performance.now() - started;
    const cpuMs = (sandbox.cgroup.cpuNanos() - cpuBefore) / 1e6;

    const latencies = durations(paced, (invocation) => invocation.doneAt - invocation.deliveredAt);
    figures = {
      initMs: 0,
      warmUpCpuPerInvocationMs: warmUpCpuMs / (counts.warmUp + (events.stream ? 5 : 0) + (events.large ? 1 : 0)),
      pacedP50Ms: percentile(latencies, 50),
      pacedP99Ms: percentile(latencies, 99),
      // The runtime may poll before the response's last byte is read here: billing ends at the later.
      billedP50Ms: median(
        durations(
          paced,
          (invocation) => Math.max(invocation.nextPollAt ?? 0, invocation.doneAt) - invocation.deliveredAt,
        ),
      ),
      ...(events.stream && {
        streamFirstByteMs: median(durations(streams, (invocation) => invocation.firstByteAt - invocation.deliveredAt)),
      }),
      ...(events.large && {
        largePromptMs: median(durations(large, (invocation) => invocation.doneAt - invocation.deliveredAt)),
      }),
      cpuPerInvocationMs: median(windows),
      cpuPerInvocationMeanMs: cpuMs / counts.backToBack,
      backToBackPerSecond: (counts.backToBack * 1000) / elapsedMs,
      peakMemoryMb: sandbox.cgroup.peakBytes() / MB,
      errors: errors.count,
      oomKills: sandbox.cgroup.oomKills(),
    };
  } catch (error) {
    // The instance died (an OOM kill ends it with SIGKILL): what it got to is reported as errors.
    figures = {
      initMs: 0,
      warmUpCpuPerInvocationMs: Number.NaN,
      pacedP50Ms: Number.NaN,
      pacedP99Ms: Number.NaN,
      billedP50Ms: Number.NaN,
      cpuPerInvocationMs: Number.NaN,
      cpuPerInvocationMeanMs: Number.NaN,
      backToBackPerSecond: 0,
      peakMemoryMb: sandbox.cgroup.peakBytes() / MB,
      errors: errors.count + 1,
      oomKills: sandbox.cgroup.oomKills(),
    };
    errors.first ??= (error as Error).message;
  } finally {
    await sandbox.close();
  }
  for (let run = 1; run < counts.initRuns; run += 1) {
    const fresh = await startSandbox({ ...spec });
    inits.push(fresh.initMs);
    await fresh.close();
  }
  return { ...figures, initMs: median(inits), ...(errors.first && { firstError: errors.first }) };
};
