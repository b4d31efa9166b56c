/**
 * Measures functions (and the hello-world handler) at one memory size: fresh instances for
 * `Init Duration`; on one instance of each, the CPU its first invocations cost (V8 compiles while it
 * warms); then, warm, requests paced 50 ms apart, streams, 1 MB prompts and back-to-back invocations,
 * with the cgroup's CPU accounting and peak memory.
 *
 * The instances measured together (a function and hello, the chat function's relay floor beside them)
 * take their back-to-back invocations in alternating windows of 25: one window of each, then the next
 * round. The host is a virtual machine whose speed drifts by 2× over minutes, with no steal time to
 * tell it by; measured one after another, hello and the function would each see another phase of it,
 * and the difference of their CPU would carry that phase's bias. Taken in alternating windows, each
 * round's windows see the same host, and what one costs beyond hello is compared round by round
 * (`cpuBeyond` in `lambda-table.ts`).
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
  /** Back-to-back invocations of each instance, in windows of 25 alternating with the other instances'. */
  readonly backToBack: number;
}

export const defaultCounts: MeasureCounts = {
  initRuns: Number(process.env.BENCH_LAMBDA_INIT_RUNS ?? 3),
  warmUp: Number(process.env.BENCH_LAMBDA_WARM_UP ?? 300),
  // p99 of 200 was the second-worst request: stalls by CPU throttling come to about 3 in 1,000 paced
  // requests at 256 MB, so one run in eight read two of them. Of 500 it is the fifth-worst.
  paced: Number(process.env.BENCH_LAMBDA_PACED ?? 500),
  paceMs: 50,
  // The median of 10 first bytes moved by a millisecond from one run to the next on this host.
  streams: Number(process.env.BENCH_LAMBDA_STREAMS ?? 30),
  largePrompts: 3,
  backToBack: Number(process.env.BENCH_LAMBDA_BACK_TO_BACK ?? 400),
};

export interface InstanceSpec {
  readonly support: Exclude<CgroupSupport, { version: undefined }>;
  readonly memoryMb: number;
  readonly outfile: string;
  readonly environment: NodeJS.ProcessEnv;
  readonly events: GroupEvents;
}

const MB = 1024 * 1024;

/** Back-to-back invocations per CPU window: each round of the back-to-back phase is one window per instance. */
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

export type MeasuredInstance = InstanceFigures & { readonly firstError?: string };

/** The figures of the phases before the back-to-back one. */
type WarmFigures = Pick<
  InstanceFigures,
  'warmUpCpuPerInvocationMs' | 'pacedP50Ms' | 'pacedP99Ms' | 'billedP50Ms' | 'streamFirstByteMs' | 'largePromptMs'
>;

/** One instance being measured: its sandbox stays up from its first phase to the last round. */
interface Instance {
  readonly spec: InstanceSpec;
  readonly sandbox: Sandbox;
  readonly errors: { count: number; first?: string };
  readonly invoke: (event: unknown) => Promise<Invocation | undefined>;
  warm?: WarmFigures;
  /** cgroup CPU per invocation of each back-to-back window, in ms. */
  readonly windows: number[];
  /** The back-to-back invocations so far, their cgroup CPU and the time they took, in ms. */
  backToBack: { invocations: number; cpuMs: number; elapsedMs: number };
  /** It died, or a phase failed: its figures are not reported. */
  dead: boolean;
}

/**
 * Runs one phase on an instance. A phase that throws, or an instance that has exited (an OOM kill
 * ends it with SIGKILL), ends its measurement, counted as an error; the other instances go on.
 */
const phase = async (instance: Instance, run: () => Promise<void>) => {
  try {
    await run();
    const exited = instance.sandbox.exited();
    if (exited) throw new Error(`the runtime exited (${exited})`);
  } catch (error) {
    instance.dead = true;
    instance.errors.count += 1;
    instance.errors.first ??= (error as Error).message;
  }
};

const durations = (list: readonly (Invocation | undefined)[], of: (invocation: Invocation) => number) =>
  list.filter((invocation): invocation is Invocation => invocation !== undefined).map(of);

/** Warming, then requests paced 50 ms apart, streams and 1 MB prompts. */
const measureWarm = async ({ sandbox, spec: { events }, invoke }: Instance, counts: MeasureCounts) => {
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
  if (events.large) for (let index = 0; index < counts.largePrompts; index += 1) large.push(await invoke(events.large));

  const latencies = durations(paced, (invocation) => invocation.doneAt - invocation.deliveredAt);
  return {
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
  } satisfies WarmFigures;
};

/** One back-to-back window of `size` invocations: the cgroup's CPU over them and the time they took, in ms. */
const backToBackWindow = async ({ sandbox, spec, invoke }: Instance, size: number) => {
  const cpuFrom = sandbox.cgroup.cpuNanos();
  const started = performance.now();
  for (let index = 0; index < size; index += 1) await invoke(spec.events.whole);
  return { cpuMs: (sandbox.cgroup.cpuNanos() - cpuFrom) / 1e6, elapsedMs: performance.now() - started };
};

/** A window whose figures count: one more of the instance's windows, and its share of the totals. */
const recordedWindow = async (instance: Instance, size: number) => {
  const { cpuMs, elapsedMs } = await backToBackWindow(instance, size);
  instance.windows.push(cpuMs / size);
  instance.backToBack.invocations += size;
  instance.backToBack.cpuMs += cpuMs;
  instance.backToBack.elapsedMs += elapsedMs;
};

/** An instance's figures, read before its sandbox closes (peak memory, OOM kills); `initMs` comes later. */
const figuresOf = (instance: Instance): InstanceFigures => {
  const { sandbox, errors, warm, windows, backToBack } = instance;
  const memory = {
    peakMemoryMb: sandbox.cgroup.peakBytes() / MB,
    errors: errors.count,
    oomKills: sandbox.cgroup.oomKills(),
  };
  if (instance.dead || !warm)
    // The instance died: what it got to is reported as errors.
    return {
      initMs: 0,
      warmUpCpuPerInvocationMs: Number.NaN,
      pacedP50Ms: Number.NaN,
      pacedP99Ms: Number.NaN,
      billedP50Ms: Number.NaN,
      cpuPerInvocationMs: Number.NaN,
      cpuPerInvocationMeanMs: Number.NaN,
      cpuWindowsMs: [],
      backToBackPerSecond: 0,
      ...memory,
    };
  return {
    initMs: 0,
    ...warm,
    cpuPerInvocationMs: median(windows),
    cpuPerInvocationMeanMs: backToBack.cpuMs / backToBack.invocations,
    cpuWindowsMs: windows,
    // From the time its own windows took, not the other instances' between them.
    backToBackPerSecond: (backToBack.invocations * 1000) / backToBack.elapsedMs,
    ...memory,
  };
};

/**
 * Measures the instances of `specs` side by side: each in turn starts and goes through its warming,
 * paced, stream and large-prompt phases, staying up; then their back-to-back invocations are taken
 * round by round, one window of 25 of each instance per round, in the order of `specs` (the module's
 * comment says why); then fresh instances of each are started for `Init Duration`. An instance that
 * dies is reported with NaN figures and its errors, and the others' measurement goes on.
 */
export const measureInstances = async (
  specs: readonly InstanceSpec[],
  counts: MeasureCounts = defaultCounts,
): Promise<MeasuredInstance[]> => {
  const instances: Instance[] = [];
  let figures: InstanceFigures[];
  try {
    for (const spec of specs) {
      const sandbox = await startSandbox({ ...spec });
      const errors = { count: 0, first: undefined as string | undefined };
      const instance: Instance = {
        spec,
        sandbox,
        errors,
        invoke: invoker(sandbox, spec.events.status, errors),
        windows: [],
        backToBack: { invocations: 0, cpuMs: 0, elapsedMs: 0 },
        dead: false,
      };
      instances.push(instance);
      await phase(instance, async () => {
        instance.warm = await measureWarm(instance, counts);
      });
    }

    // Back to back: the cgroup's CPU time over invocations that follow each other at once, taken in
    // windows. An instance's figure is its median window's: on a virtualized host, stretches of a few
    // hundred invocations cost several times the CPU when the host is busy (the kernel's work of
    // waking the local peers a function writes to, the store stand-in and the upstream, which on
    // Lambda are across the network). The mean is kept beside it. Round by round, one window of each
    // instance still up, so that the instances compared see the host in the same phase. A first round
    // is left out: an instance that sat idle while the others warmed starts with cold caches.
    for (const instance of instances)
      if (!instance.dead) await phase(instance, async () => void (await backToBackWindow(instance, CPU_WINDOW)));
    for (let from = 0; from < counts.backToBack; from += CPU_WINDOW) {
      const size = Math.min(CPU_WINDOW, counts.backToBack - from);
      for (const instance of instances) if (!instance.dead) await phase(instance, () => recordedWindow(instance, size));
    }
    figures = instances.map(figuresOf);
  } finally {
    for (const instance of instances) await instance.sandbox.close();
  }

  // Fresh instances one at a time: started together, they would share the host's cores.
  const measured: MeasuredInstance[] = [];
  for (const [index, { sandbox, spec, errors }] of instances.entries()) {
    const inits = [sandbox.initMs];
    for (let run = 1; run < counts.initRuns; run += 1) {
      const fresh = await startSandbox({ ...spec });
      inits.push(fresh.initMs);
      await fresh.close();
    }
    measured.push({ ...figures[index]!, initMs: median(inits), ...(errors.first && { firstError: errors.first }) });
  }
  return measured;
};
