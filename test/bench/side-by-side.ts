import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { benchAdmin, chatBody, type BenchKeys } from './bench-setup.js';
import { concurrently } from './concurrently.js';
import { percentile, post } from './http-client.js';
import { cpuMicros, hasTaskset, peakRssMb, pin, resetPeakRss } from './process-stats.js';
import { startStoreStandIn, type StoreStandIn } from './store-stand-in-process.js';

/**
 * Gateways compared side by side: one process per contender (a bundle and its V8 flags), each with its
 * own store stand-in, all pinned to the same CPU, taking turns slice by slice under the same load, so
 * that the host's drift falls on every contender alike, where separate runs of the same code differ
 * by a third. Every other round runs in the reverse order. The order the processes were started in
 * counts too: in runs of one build against itself, the gateway started first read 5–7 % more CPU
 * than the other, so a comparison of two builds runs once in each start order (`compare-builds.ts`).
 */
export interface Contender {
  readonly label: string;
  /** A bundled `gateway-process.ts` (`bundledServer`). */
  readonly bundle: string;
  readonly flags: readonly string[];
}

/**
 * What a contender is measured on: plain and limited requests at c=32, streams of 20 chunks and a
 * usage chunk at c=16.
 */
export type LoadKind = 'plain' | 'limited' | 'stream';

export interface SideBySideOptions {
  readonly rounds: number;
  /** Calls of each kind per contender per round. */
  readonly slice: number;
  readonly kinds: readonly LoadKind[];
}

export interface ContenderFigures {
  readonly contender: Contender;
  /** Microseconds of CPU per call, by kind. */
  readonly cpuMicros: Partial<Record<LoadKind, number>>;
  /** Milliseconds to a stream's first byte, p50 (NaN without streams). */
  readonly streamFirstByteMs: number;
  readonly peakRssMb: number;
}

const SERVER_CPU = 1;
const LOAD_CPU = 0;

const CONCURRENCY: Record<LoadKind, number> = { plain: 32, limited: 32, stream: 16 };

interface Running {
  readonly contender: Contender;
  readonly child: ChildProcess;
  readonly store: StoreStandIn;
  readonly url: string;
  readonly keys: BenchKeys;
  readonly cpu: Partial<Record<LoadKind, number>>;
  readonly firstBytes: number[];
  peakRssMb: number;
}

export const pinnedNote = `gateways pinned to CPU ${SERVER_CPU}${hasTaskset ? '' : ' (taskset missing: not pinned)'}`;

export const runSideBySide = async (
  contenders: readonly Contender[],
  { rounds, slice, kinds }: SideBySideOptions,
): Promise<ContenderFigures[]> => {
  pin(process.pid, LOAD_CPU);
  const upstream = await startFakeUpstream(undefined, { keepAliveTimeoutMs: 10 * 60_000 });
  const start = async (contender: Contender): Promise<Running> => {
    const adminKey = generateApiKey().key;
    const store = await startStoreStandIn(LOAD_CPU);
    const child = fork(contender.bundle, {
      execArgv: [...contender.flags],
      env: { ...process.env, BENCH_ADMIN_KEY: adminKey, BENCH_STORE_ENDPOINT: store.url, GATEWAY_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const [ready] = (await once(child, 'message')) as [{ url: string }];
    pin(child.pid!, SERVER_CPU);
    const admin = benchAdmin(ready.url, adminKey);
    await admin.addChannel('bench', upstream.baseUrl, 'bench-model');
    const keys = await admin.createKeys();
    return { contender, child, store, url: ready.url, keys, cpu: {}, firstBytes: [], peakRssMb: 0 };
  };
  const load = (gateway: Running, kind: LoadKind, count: number) => {
    const body = chatBody(kind === 'stream');
    const key = kind === 'limited' ? gateway.keys.limited : gateway.keys.plain;
    return concurrently(count, CONCURRENCY[kind], async () => {
      const timing = await post(`${gateway.url}/v1/chat/completions`, { authorization: `Bearer ${key}` }, body);
      if (timing.status !== 200) throw new Error(`${gateway.contender.label}: status ${timing.status}`);
      return timing;
    });
  };

  const running: Running[] = [];
  for (const contender of contenders) running.push(await start(contender));
  // Warmed up first: V8 compiles a server's hot paths over its first thousands of requests.
  for (const gateway of running) for (const kind of kinds) await load(gateway, kind, 2 * slice);
  for (let round = 0; round < rounds; round += 1) {
    for (const gateway of round % 2 === 0 ? running : [...running].reverse()) {
      for (const kind of kinds) {
        const pid = gateway.child.pid!;
        resetPeakRss(pid);
        const before = cpuMicros(pid);
        const timings = await load(gateway, kind, slice);
        gateway.cpu[kind] = (gateway.cpu[kind] ?? 0) + cpuMicros(pid) - before;
        gateway.peakRssMb = Math.max(gateway.peakRssMb, peakRssMb(pid));
        if (kind === 'stream') gateway.firstBytes.push(...timings.map((timing) => timing.firstByteMs));
      }
    }
  }

  for (const gateway of running) gateway.child.send({ kind: 'stop' });
  await Promise.all(running.map((gateway) => once(gateway.child, 'exit')));
  for (const gateway of running) gateway.store.stop();
  await upstream.close();
  const calls = rounds * slice;
  return running.map((gateway) => ({
    contender: gateway.contender,
    cpuMicros: Object.fromEntries(Object.entries(gateway.cpu).map(([kind, micros]) => [kind, micros / calls])),
    streamFirstByteMs: percentile(gateway.firstBytes, 50),
    peakRssMb: gateway.peakRssMb,
  }));
};
