import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { percentile, post, type Timing } from './http-client.js';
import { measureBundles } from './bundle-figures.js';
import type { HandlerPathCpu } from './handler-path.js';
import { benchAdmin, chatBody, UPSTREAM_KEY } from './bench-setup.js';
import { bundledServer } from './bundled-server.js';
import { concurrently } from './concurrently.js';
import { startPortkey } from './portkey-server.js';
import { startStoreStandIn } from './store-stand-in-process.js';
import { startHeapFlags } from './start-heap-flags.js';
import { cpuMicros, hasTaskset, mainThreadCpuMicros, peakRssMb, pin, resetPeakRss } from './process-stats.js';

/**
 * `npm run bench`: the gateway's own cost per request against a floor (a minimal node:http forwarder)
 * and Portkey's open-source gateway, in one run, on the same loopback fake upstream (DESIGN §6). Each
 * server runs in its own process pinned to CPU 1; the load, the fake upstream and the gateway's store
 * (a separate process, as DynamoDB is a separate service) share CPU 0. Budgets are ratios to the
 * floor and to Portkey measured in the same run, printed with PASS or FAIL.
 */
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 500);
/** One request at a time, for the latency percentiles: a p99 of 1,000 is the tenth worst, not the fifth. */
const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 1000);
const LOADED = Number(process.env.BENCH_LOADED_REQUESTS ?? 4000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 800);
/**
 * Streams from an upstream that sends its 20 chunks (and the usage chunk) `PACE_MS` apart, as a fast
 * model does: the saturated streams above arrive all at once, so their first byte measures CPU per
 * stream; these measure what the gateway adds to a first byte, and to forwarding, when chunks come
 * over time.
 */
const PACED_STREAMS = Number(process.env.BENCH_PACED_STREAMS ?? 320);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 5);
/** Fresh processes per bundle (and per hello-world) when timing cold starts. */
const COLD_STARTS = Math.max(1, Number(process.env.BENCH_COLD_STARTS ?? 7));
/**
 * Requests each server serves, 32 at a time, before anything is measured: V8 compiles a server's hot
 * paths over its first ten thousand requests or so (traced with `--trace-opt`, Node's own HTTP client
 * functions got optimized code around the gateway's 9,700th request, and a `perf` profile of requests
 * 1,000 to 17,000 spent 13 % of the gateway's CPU in the optimizing compiler). Measured sooner, every
 * figure would carry the compiler's work along with the server's. Every server gets the same.
 */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 12_000);
/** Streams each server serves, 16 at a time, before its streams are measured; likewise. */
const STREAM_WARM_UP = Number(process.env.BENCH_STREAM_WARM_UP ?? 2_000);
const SERVER_CPU = 1;
const LOAD_CPU = 0;

pin(process.pid, LOAD_CPU);
// The servers take turns: a server's pooled connections to the upstream sit idle through the others'
// turns, and an idle close racing a request's reuse would fail it (a 502 from the floor). Real
// upstreams close idle connections too; that is not what the bench measures.
const upstream = await startFakeUpstream(undefined, { keepAliveTimeoutMs: 10 * 60_000 });
const pacedUpstream = await startFakeUpstream(undefined, {
  keepAliveTimeoutMs: 10 * 60_000,
  standingFault: { kind: 'slow-stream', gapMs: PACE_MS },
});
/** The gateway is measured as it is started: with `npm start`'s V8 heap flags. */
const gatewayHeapFlags = startHeapFlags();
const forked = async (module: string, env: Record<string, string>): Promise<[ChildProcess, any]> => {
  const child = fork(await bundledServer(path.join('test', 'bench', module)), {
    execArgv: [
      ...(module.includes('gateway') ? gatewayHeapFlags : []),
      ...(process.env.BENCH_CPU_PROFILE && module.includes('gateway')
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
        : []),
    ],
    env: { ...process.env, ...env },
    // The gateway's request lines are paid for as on Lambda (written at `info`), then discarded.
    ...(module.includes('gateway') && { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
  });
  const [ready] = (await once(child, 'message')) as [any];
  pin(child.pid!, SERVER_CPU);
  return [child, ready];
};

// The gateway and DynamoDB's stand-in, which runs beside the load: its work is not the gateway's.
const store = await startStoreStandIn(LOAD_CPU);
const adminKey = generateApiKey().key;
const [gatewayChild, gatewayReady] = await forked('./gateway-process.ts', {
  BENCH_ADMIN_KEY: adminKey,
  BENCH_STORE_ENDPOINT: store.url,
  GATEWAY_LOG_LEVEL: 'info',
});
const [floorChild, floorReady] = await forked('./floor-forwarder.ts', {
  FLOOR_UPSTREAM: upstream.baseUrl,
  FLOOR_UPSTREAM_KEY: UPSTREAM_KEY,
});
const [pacedFloorChild, pacedFloorReady] = await forked('./floor-forwarder.ts', {
  FLOOR_UPSTREAM: pacedUpstream.baseUrl,
  FLOOR_UPSTREAM_KEY: UPSTREAM_KEY,
});
const stopAll = () => {
  for (const child of [gatewayChild, floorChild, pacedFloorChild]) if (child.connected) child.send({ kind: 'stop' });
  if (typeof portkey !== 'string') portkey.process.kill();
};
// The forked servers leave when this process's IPC channel closes; Portkey is killed on any exit.
process.once('exit', () => {
  if (typeof portkey !== 'string') portkey.process.kill();
});
let portkey: Awaited<ReturnType<typeof startPortkey>> = 'not started';
portkey = await startPortkey(18_000 + Math.floor(Math.random() * 2000));
if (typeof portkey !== 'string') pin(portkey.process.pid!, SERVER_CPU);

const gatewayUrl = gatewayReady.url as string;
const gatewayAdmin = benchAdmin(gatewayUrl, adminKey);
await gatewayAdmin.addChannel('bench', upstream.baseUrl, 'bench-model');
await gatewayAdmin.addChannel('bench-paced', pacedUpstream.baseUrl, 'bench-paced-model');
const { plain: plainKey, limited: limitedKey } = await gatewayAdmin.createKeys();

const bodies = { plain: chatBody(false), stream: chatBody(true), pacedStream: chatBody(true, 'bench-paced-model') };

interface Target {
  readonly name: string;
  readonly pid: number;
  readonly call: (stream: boolean) => Promise<Timing>;
}
/** A server's chat completions call: the plain body, or `streamBody` when streaming. */
const chatCall =
  (baseUrl: string, headers: Record<string, string>, streamBody = bodies.stream) =>
  (stream: boolean) =>
    post(`${baseUrl}/v1/chat/completions`, headers, stream ? streamBody : bodies.plain);
/** Chat requests sent through the gateway, each of which must leave one usage record. */
let gatewayRequests = 0;
const gatewayCall = (key: string, streamBody?: string) => {
  const call = chatCall(gatewayUrl, { authorization: `Bearer ${key}` }, streamBody);
  return (stream: boolean) => {
    gatewayRequests += 1;
    return call(stream);
  };
};
const floor: Target = { name: 'floor', pid: floorChild.pid!, call: chatCall(floorReady.url, {}) };
const portkeyTarget: Target | undefined =
  typeof portkey === 'string'
    ? undefined
    : {
        name: 'Portkey',
        pid: portkey.process.pid!,
        call: chatCall(portkey.url, {
          authorization: `Bearer ${UPSTREAM_KEY}`,
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': upstream.baseUrl,
        }),
      };
const gateway: Target = { name: 'model-gateway', pid: gatewayChild.pid!, call: gatewayCall(plainKey) };
/** The paced streams, for the floor and the gateway's plain key; keyed by the saturated target's name. */
const pacedTargets: ReadonlyMap<string, Target> = new Map([
  [
    floor.name,
    { name: 'floor, paced', pid: pacedFloorChild.pid!, call: chatCall(pacedFloorReady.url, {}, bodies.pacedStream) },
  ],
  [
    gateway.name,
    { name: 'model-gateway, paced', pid: gatewayChild.pid!, call: gatewayCall(plainKey, bodies.pacedStream) },
  ],
]);
const gatewayLimited: Target = { name: 'model-gateway, limits', pid: gatewayChild.pid!, call: gatewayCall(limitedKey) };

/** `count` calls, `concurrency` at a time; every answer must be a 200. */
const run = async (target: Target, count: number, concurrency: number, stream = false, warmUp = false) => {
  const started = process.hrtime.bigint();
  const cpuBefore = cpuMicros(target.pid);
  const mainBefore = mainThreadCpuMicros(target.pid);
  const timings = await concurrently(count, concurrency, async () => {
    const timing = await target.call(stream);
    // A warm-up may meet pooled connections the upstream closed while the previous server ran.
    if (timing.status !== 200 && !warmUp) throw new Error(`${target.name}: status ${timing.status}`);
    return timing;
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    timings,
    cpuMs: (cpuMicros(target.pid) - cpuBefore) / 1000 / count,
    mainThreadMs: (mainThreadCpuMicros(target.pid) - mainBefore) / 1000 / count,
    perSecond: count / seconds,
  };
};

interface Figures {
  cpuMs: number;
  sequentialCpuMs: number;
  perSecond: number;
  streamCpuMs: number;
  streamsPerSecond: number;
  /** Shares of the CPU per request and per stream that ran beside the main thread. */
  besideMainThread: number;
  streamBesideMainThread: number;
  firstByteMs: number;
  /** NaN for a server without paced streams. */
  pacedFirstByteMs: number;
  /** From the first byte to the last of a paced stream; NaN likewise. */
  pacedSpanMs: number;
  p50: number;
  p99: number;
  peakRssMb: number;
}
const notes: string[] = [];

/** One kind of load over all rounds: counts, CPU and wall time summed, every timing kept. */
class Phase {
  count = 0;
  cpuMs = 0;
  mainThreadMs = 0;
  seconds = 0;
  readonly timings: Timing[] = [];
  /** A slice's result: one timing per call. */
  add(result: Awaited<ReturnType<typeof run>>): void {
    const count = result.timings.length;
    this.count += count;
    this.cpuMs += result.cpuMs * count;
    this.mainThreadMs += result.mainThreadMs * count;
    this.seconds += count / result.perSecond;
    this.timings.push(...result.timings);
  }
  get cpuPerCall(): number {
    return this.count === 0 ? Number.NaN : this.cpuMs / this.count;
  }
  get perSecond(): number {
    return this.count === 0 ? Number.NaN : this.count / this.seconds;
  }
  /** The share of the CPU that ran beside the main thread (V8's compiler and collector threads). */
  get besideMainThread(): number {
    return this.cpuMs === 0 ? Number.NaN : 1 - this.mainThreadMs / this.cpuMs;
  }
}

interface Measured {
  /** One request at a time, in the round's slice: CPU per request (and the handler path beside it). */
  readonly sequential: Phase;
  /** One request at a time, in short slices taken in turn: the latency figures. */
  readonly latency: Phase;
  readonly loaded: Phase;
  readonly streams: Phase;
  readonly paced: Phase;
  peakRssMb: number;
  /** Set when a comparison server cannot stream this upstream: its streams are reported as missing. */
  streamsFailed?: string;
}

/**
 * The machine's speed drifts over a run (other tenants, frequency): a server measured a minute after
 * another would carry that drift into every ratio. So the load is cut into `ROUNDS` slices and the
 * servers take turns, slice by slice; each figure sums its server's slices.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4));
const slice = (total: number) => Math.max(1, Math.round(total / ROUNDS));

/**
 * The chat handler path alone (in the gateway's process, no HTTP server), measured in each round
 * right after the gateway's sequential slice: its difference from that slice is what the local
 * runtime adds, and both must see the same moment of the host's drift.
 */
const handlerPath = { oneAtATime: 0, sharedProcess: 0, count: 0, invocations: 0 };
const measureHandlerPath = async (count: number): Promise<void> => {
  gatewayChild.send({ kind: 'handler-path', key: plainKey, body: bodies.plain, count });
  const [{ cpu, invocations }] = (await once(gatewayChild, 'message')) as [
    { cpu: HandlerPathCpu; invocations: number },
  ];
  handlerPath.oneAtATime += cpu.oneAtATime * count;
  handlerPath.sharedProcess += cpu.sharedProcess * count;
  handlerPath.count += count;
  // In all, warm-up runs included: each left a usage record.
  handlerPath.invocations = invocations;
};

const measured = new Map<Target, Measured>();
const targetsInTurn = [floor, ...(portkeyTarget ? [portkeyTarget] : []), gateway, gatewayLimited];
// Every kind of call a server is measured on is warmed up before the first round. A kind first met
// later deoptimizes code the kinds share, and V8 took some 10,000 more requests to optimize it again
// (traced with `--trace-opt --trace-deopt`): streams first warmed up within round 0 left that work to
// the measured slices after them.
for (const target of targetsInTurn) {
  await run(target, WARM_UP, 32, false, true);
  await run(target, STREAM_WARM_UP, 16, true, true);
  const paced = pacedTargets.get(target.name);
  if (paced) await run(paced, 40, 8, true, true);
  measured.set(target, {
    sequential: new Phase(),
    latency: new Phase(),
    loaded: new Phase(),
    streams: new Phase(),
    paced: new Phase(),
    peakRssMb: 0,
  });
}
for (let round = 0; round < ROUNDS; round += 1) {
  for (const target of targetsInTurn) {
    const figures = measured.get(target)!;
    figures.sequential.add(await run(target, slice(SEQUENTIAL), 1));
    if (target === gateway) await measureHandlerPath(slice(SEQUENTIAL));
    resetPeakRss(target.pid);
    figures.loaded.add(await run(target, slice(LOADED), 32));
    figures.peakRssMb = Math.max(figures.peakRssMb, peakRssMb(target.pid));
    if (figures.streamsFailed) continue;
    try {
      figures.streams.add(await run(target, slice(STREAMS), 16, true));
      const paced = pacedTargets.get(target.name);
      if (paced) figures.paced.add(await run(paced, slice(PACED_STREAMS), 16, true));
    } catch (error) {
      if (target === gateway || target === floor) throw error;
      figures.streamsFailed = (error as Error).message;
      notes.push(`${target.name} streams not measured: ${figures.streamsFailed}`);
    }
  }
}

/**
 * Latency one request at a time, the servers taking turns in slices of `LATENCY_SLICE` requests. The
 * host's hiccups last milliseconds to tens of them and a p99 is the worst few requests: in slices this
 * short each server meets the same hiccups, where a slice of a hundred requests or more would hand a
 * hiccup to whichever server ran through it. Each slice opens with one uncounted request, since its
 * server sat idle through the others' slices.
 */
const LATENCY_SLICE = Math.max(1, Number(process.env.BENCH_LATENCY_SLICE ?? 20));
for (let taken = 0; taken < LATENCY_REQUESTS; taken += LATENCY_SLICE) {
  for (const target of targetsInTurn) {
    await run(target, 1, 1, false, true);
    measured.get(target)!.latency.add(await run(target, Math.min(LATENCY_SLICE, LATENCY_REQUESTS - taken), 1));
  }
}

const results = new Map<string, Figures>();
for (const [target, figures] of measured) {
  const totals = figures.latency.timings.map((timing) => timing.totalMs);
  results.set(target.name, {
    cpuMs: figures.loaded.cpuPerCall,
    sequentialCpuMs: figures.sequential.cpuPerCall,
    perSecond: figures.loaded.perSecond,
    streamCpuMs: figures.streams.cpuPerCall,
    streamsPerSecond: figures.streams.perSecond,
    besideMainThread: figures.loaded.besideMainThread,
    streamBesideMainThread: figures.streams.besideMainThread,
    firstByteMs: percentile(
      figures.streams.timings.map((timing) => timing.firstByteMs),
      50,
    ),
    pacedFirstByteMs: percentile(
      figures.paced.timings.map((timing) => timing.firstByteMs),
      50,
    ),
    pacedSpanMs: percentile(
      figures.paced.timings.map((timing) => timing.totalMs - timing.firstByteMs),
      50,
    ),
    p50: percentile(totals, 50),
    p99: percentile(totals, 99),
    peakRssMb: figures.peakRssMb,
  });
}

// Once the servers are idle: cold starts are timed in fresh processes that need the CPU to themselves.
const bundleFigures = await measureBundles(COLD_STARTS);

// Report.
const ms = (value: number, digits = 2) => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : '—');
const columns = [...results.keys()];
const row = (name: string, value: (figures: Figures) => string) =>
  `| ${name} | ${columns.map((column) => value(results.get(column)!)).join(' | ')} |`;
const lines = [
  `| figure | ${columns.join(' | ')} |`,
  `|---|${columns.map(() => '---').join('|')}|`,
  row('CPU per request, c=32', (figures) => ms(figures.cpuMs, 3)),
  row('CPU per stream (20 chunks + usage), c=16', (figures) => ms(figures.streamCpuMs, 3)),
  row('requests/s on one core, c=32', (figures) => figures.perSecond.toFixed(0)),
  row('stream time to first byte p50, c=16', (figures) => ms(figures.firstByteMs)),
  row(`paced stream (a chunk every ${PACE_MS} ms): first byte p50, c=16`, (figures) => ms(figures.pacedFirstByteMs)),
  row('paced stream: first byte to last p50, c=16', (figures) => ms(figures.pacedSpanMs)),
  row('latency p50, c=1', (figures) => ms(figures.p50, 3)),
  row('latency p99, c=1', (figures) => ms(figures.p99, 3)),
  row('peak RSS under 32-way load', (figures) => `${figures.peakRssMb.toFixed(0)} MB`),
];
const out = (line = '') => process.stdout.write(`${line}\n`);
out(
  `model-gateway bench: ${SEQUENTIAL} sequential (CPU), ${LATENCY_REQUESTS} sequential in slices of ` +
    `${LATENCY_SLICE} (latency), ${LOADED} at c=32, ${STREAMS} streams at c=16; ` +
    `servers pinned to CPU ${SERVER_CPU}${hasTaskset ? '' : ' (taskset missing: not pinned)'}; ` +
    `store in its own process; gateway heap flags as \`npm start\`: ${gatewayHeapFlags.join(' ') || 'none'}; ` +
    `Portkey: ${typeof portkey === 'string' ? portkey : 'measured'}`,
);
out();
for (const line of lines) out(line);

const g = results.get(gateway.name)!;
const l = results.get(gatewayLimited.name)!;
const f = results.get(floor.name)!;
const p = portkeyTarget ? results.get(portkeyTarget.name) : undefined;
const largestBundle = bundleFigures.groups.reduce((largest, group) =>
  group.kilobytes > largest.kilobytes ? group : largest,
);
const slowestStart = bundleFigures.groups.reduce((slowest, group) =>
  (group.coldStartRatio ?? Number.POSITIVE_INFINITY) > (slowest.coldStartRatio ?? Number.POSITIVE_INFINITY)
    ? group
    : slowest,
);
const targets: [string, number, string, boolean][] = [
  ['CPU per request ≤ 3× floor (no limits)', g.cpuMs / f.cpuMs, '×', g.cpuMs <= 3 * f.cpuMs],
  ['CPU per request ≤ 4× floor (rate limit + quota)', l.cpuMs / f.cpuMs, '×', l.cpuMs <= 4 * f.cpuMs],
  ...(p
    ? ([
        ["CPU per request ≤ ⅓ Portkey's", g.cpuMs / p.cpuMs, '×', g.cpuMs <= p.cpuMs / 3],
        ["requests/s ≥ 3× Portkey's", g.perSecond / p.perSecond, '×', g.perSecond >= 3 * p.perSecond],
      ] as [string, number, string, boolean][])
    : []),
  ['stream first byte adds ≤ 1 ms (c=16)', g.firstByteMs - f.firstByteMs, 'ms', g.firstByteMs - f.firstByteMs <= 1],
  ['added latency p50 ≤ 0.5 ms (c=1)', g.p50 - f.p50, 'ms', g.p50 - f.p50 <= 0.5],
  ['added latency p99 ≤ 2 ms (c=1)', g.p99 - f.p99, 'ms', g.p99 - f.p99 <= 2],
  ['peak RSS ≤ 150 MB (c=32)', g.peakRssMb, 'MB', g.peakRssMb <= 150],
  [
    `every bundle ≤ 250 KB (largest: ${largestBundle.group})`,
    largestBundle.kilobytes,
    'KB',
    largestBundle.kilobytes <= 250,
  ],
  [
    `cold start ≤ 1.5× hello-world (slowest: ${slowestStart.group})`,
    slowestStart.coldStartRatio ?? Number.NaN,
    '×',
    (slowestStart.coldStartRatio ?? Number.POSITIVE_INFINITY) <= 1.5,
  ],
];
out();
for (const [name, value, unit, pass] of targets)
  out(
    `${pass ? 'PASS' : 'FAIL'}  ${name.padEnd(48)} ${value.toFixed(unit === '×' ? 2 : unit === 'KB' ? 1 : 3)} ${unit}`,
  );
out();
out(
  `bundles, KB a cold start loads / cold start over hello-world's under AWS's runtime interface client` +
    `${bundleFigures.helloWorldMs === undefined ? '' : ` (each bundle's start over the hello-world's just before it, median of ${COLD_STARTS} such pairs; hello-world ${bundleFigures.helloWorldMs.toFixed(0)} ms)`}: ` +
    bundleFigures.groups
      .map(
        (group) =>
          `${group.group} ${group.kilobytes.toFixed(0)} / ${group.coldStartRatio === undefined ? '—' : `${group.coldStartRatio.toFixed(2)}×`}`,
      )
      .join(', ') +
    (typeof bundleFigures.storeClientRatio === 'number'
      ? `; the store client alone (no gateway code), under every group's: ${bundleFigures.storeClientRatio.toFixed(2)}×`
      : ''),
);
if (bundleFigures.coldStartsMissing) out(bundleFigures.coldStartsMissing);
if (typeof bundleFigures.storeClientRatio === 'string') out(bundleFigures.storeClientRatio);
const handlerMs = handlerPath.oneAtATime / handlerPath.count / 1000;
const sharedHandlerMs = handlerPath.sharedProcess / handlerPath.count / 1000;
// Over HTTP the local runtime serves requests as a shared process does: that is the path to compare with.
const emulationMs = g.sequentialCpuMs - sharedHandlerMs;
out();
out(
  `chat handler path alone (proxy event in, no HTTP server), c=1: ${ms(handlerMs, 3)} CPU per request one ` +
    `invocation at a time (Lambda's default compute), ${ms(sharedHandlerMs, 3)} in a process serving many ` +
    `(records share calls)`,
);
out(
  `local runtime's HTTP server + API Gateway emulation (not paid on Lambda): ` +
    (emulationMs > 0
      ? `about ${ms(emulationMs, 3)} of the ${ms(g.sequentialCpuMs, 3)} per request over HTTP, c=1`
      : `within this run's noise (${ms(g.sequentialCpuMs, 3)} per request over HTTP, c=1)`),
);
out(
  `paced streams (the upstream sends a chunk every ${PACE_MS} ms, c=16): the gateway adds ` +
    `${ms(g.pacedFirstByteMs - f.pacedFirstByteMs)} to the first byte and ${ms(g.pacedSpanMs - f.pacedSpanMs)} ` +
    `from it to the last, over the floor; the first-byte target above is measured on the saturated streams`,
);
// Requests/s is the server's only when its core is the one that is full: the load core also runs the
// fake upstream and, for the gateway, the store's stand-in, and can fill first.
const busy = (cpuMs: number, perSecond: number) => `${((cpuMs / 1000) * perSecond * 100).toFixed(0)} %`;
out(
  `requests/s at c=32, what bounded it: the gateway's core was busy ${busy(g.cpuMs, g.perSecond)} of the ` +
    `time (the floor's ${busy(f.cpuMs, f.perSecond)}` +
    (p ? `, Portkey's ${busy(p.cpuMs, p.perSecond)}` : '') +
    `); below 100 %, the load core (load, fake upstream, the store's stand-in) was the full one. At its CPU ` +
    `per request, one full core would serve ${(1000 / g.cpuMs).toFixed(0)} requests/s` +
    (p ? ` (${(1000 / g.cpuMs / (1000 / p.cpuMs)).toFixed(2)}× Portkey's at its own)` : ''),
);
out(
  `saturated streams at c=16, what bounded them: the gateway's core was busy ` +
    `${busy(g.streamCpuMs, g.streamsPerSecond)} of the time (the floor's ${busy(f.streamCpuMs, f.streamsPerSecond)}); ` +
    `a first byte waits behind the other streams' work on whichever core is full`,
);
const percent = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(0)} %` : '—');
// A compiler still at work in the measured slices would show here, above the floor's share.
out(
  `CPU beside the main thread (V8's compiler and collector threads): the gateway's ` +
    `${percent(g.besideMainThread)} per request at c=32 and ${percent(g.streamBesideMainThread)} per stream, ` +
    `the floor's ${percent(f.besideMainThread)} and ${percent(f.streamBesideMainThread)}`,
);
for (const note of notes) out(note);
out('figures measure the store as a separate process (as deployed), not the embedded default of `npm start`');

stopAll();
await Promise.all([once(gatewayChild, 'exit'), once(floorChild, 'exit'), once(pacedFloorChild, 'exit')]);
// The gateway has written its last records as it closed: the stand-in must hold one for every request.
const taken = await store.records();
const sent = gatewayRequests + handlerPath.invocations;
out(
  `usage records the store's stand-in took: ${taken.records} in ${taken.calls} calls, for ${sent} chat requests ` +
    `(${gatewayRequests} over HTTP, ${handlerPath.invocations} on the handler path alone)` +
    (taken.records === sent ? '' : ` (MISMATCH: ${taken.records - sent} records)`),
);
store.stop();
await upstream.close();
await pacedUpstream.close();
process.exit(0);
