/**
 * A V8 CPU profile (`--cpu-prof`'s `.cpuprofile`) summarised by function self time (each sample's
 * interval charged to the function on top of the stack) and by inclusive time (charged to every
 * function on the stack, once), from a moment on (a monotonic timestamp in microseconds, the clock V8
 * stamps samples with), and divided per invocation.
 */
import path from 'node:path';

export interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly children?: readonly number[];
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

const namesOf = (profile: CpuProfile) =>
  new Map(
    profile.nodes.map(({ id, callFrame }) => [
      id,
      `${callFrame.functionName || '(anonymous)'} ${callFrame.url ? `${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : ''}`.trim(),
    ]),
  );

/** Each sample from `fromMicros` on, with the interval it stands for (until the next sample). */
const samplesFrom = function* (profile: CpuProfile, fromMicros: number) {
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    at += profile.timeDeltas[index] ?? 0;
    if (at >= fromMicros) yield { node: profile.samples[index]!, micros: profile.timeDeltas[index + 1] ?? 0 };
  }
};

const sorted = (totals: Map<string, number>): SelfTime[] =>
  [...totals].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros);

/** Self time per function (name, file and line), largest first, counting samples from `fromMicros` on. */
export const selfTimes = (profile: CpuProfile, fromMicros = 0): SelfTime[] => {
  const names = namesOf(profile);
  const totals = new Map<string, number>();
  for (const { node, micros } of samplesFrom(profile, fromMicros)) {
    const name = names.get(node) ?? '?';
    totals.set(name, (totals.get(name) ?? 0) + micros);
  }
  return sorted(totals);
};

/**
 * Inclusive time per function: a sample counts for every function on its stack (once, however often
 * it recurs there), so that a route's steps can be weighed as wholes. Idle samples are left out.
 */
export const inclusiveTimes = (profile: CpuProfile, fromMicros = 0): SelfTime[] => {
  const names = namesOf(profile);
  const parents = new Map<number, number>();
  for (const { id, children } of profile.nodes) for (const child of children ?? []) parents.set(child, id);
  const totals = new Map<string, number>();
  for (const { node, micros } of samplesFrom(profile, fromMicros)) {
    if (names.get(node) === '(idle)') continue;
    const seen = new Set<string>();
    for (let id: number | undefined = node; id !== undefined; id = parents.get(id)) {
      const name = names.get(id) ?? '?';
      if (seen.has(name)) continue;
      seen.add(name);
      totals.set(name, (totals.get(name) ?? 0) + micros);
    }
  }
  return sorted(totals);
};

/** The summary as text: one line per function, milliseconds per invocation, idle left out. */
export const summariseProfile = (
  profile: CpuProfile,
  options: { readonly fromMicros: number; readonly invocations: number; readonly top: number },
): string => {
  const times = selfTimes(profile, options.fromMicros).filter(({ name }) => name !== '(idle)');
  const busy = times.reduce((sum, { micros }) => sum + micros, 0);
  const perInvocation = (micros: number) => (micros / 1000 / options.invocations).toFixed(3);
  const line = ({ name, micros }: SelfTime) =>
    `${perInvocation(micros).padStart(8)} ms  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`;
  // The function's own code (the bundle's files) by inclusive time: which steps of a request weigh most.
  const own = inclusiveTimes(profile, options.fromMicros).filter(({ name }) => /\b(index|chunk-\w+)\.mjs:/.test(name));
  return [
    `${perInvocation(busy)} ms of sampled CPU per invocation on the main thread, by self time:`,
    ...times.slice(0, options.top).map(line),
    '',
    'The runtime client and the bundle by inclusive time (a function with everything it calls):',
    ...own.slice(0, options.top).map(line),
  ].join('\n');
};
