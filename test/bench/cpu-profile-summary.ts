/**
 * A V8 CPU profile (`--cpu-prof`'s `.cpuprofile`) summarised by function self time: each sample's
 * interval is charged to the function on top of the stack, from a moment on (a monotonic timestamp
 * in microseconds, the clock V8 stamps samples with), and divided per invocation.
 */
import path from 'node:path';

export interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }>;
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  /** Microseconds of self time. */
  readonly micros: number;
}

/** Self time per function (name, file and line), largest first, counting samples from `fromMicros` on. */
export const selfTimes = (profile: CpuProfile, fromMicros = 0): SelfTime[] => {
  const names = new Map(
    profile.nodes.map(({ id, callFrame }) => [
      id,
      `${callFrame.functionName || '(anonymous)'} ${callFrame.url ? `${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : ''}`.trim(),
    ]),
  );
  const totals = new Map<string, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    at += profile.timeDeltas[index] ?? 0;
    // A sample stands for the interval until the next one.
    const interval = profile.timeDeltas[index + 1] ?? 0;
    if (at < fromMicros) continue;
    const name = names.get(profile.samples[index]!) ?? '?';
    totals.set(name, (totals.get(name) ?? 0) + interval);
  }
  return [...totals].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros);
};

/** The summary as text: one line per function, milliseconds per invocation, idle left out. */
export const summariseProfile = (
  profile: CpuProfile,
  options: { readonly fromMicros: number; readonly invocations: number; readonly top: number },
): string => {
  const times = selfTimes(profile, options.fromMicros).filter(({ name }) => name !== '(idle)');
  const busy = times.reduce((sum, { micros }) => sum + micros, 0);
  const perInvocation = (micros: number) => (micros / 1000 / options.invocations).toFixed(3);
  return [
    `${perInvocation(busy)} ms of sampled CPU per invocation on the main thread, by self time:`,
    ...times
      .slice(0, options.top)
      .map(
        ({ name, micros }) =>
          `${perInvocation(micros).padStart(8)} ms  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`,
      ),
  ].join('\n');
};
