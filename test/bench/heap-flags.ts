import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { benchAdmin, type BenchKeys } from './bench-setup.js';
import { bundledServer } from './bundled-server.js';
import { concurrently } from './concurrently.js';
import { post } from './http-client.js';
import { cpuMicros, hasTaskset, peakRssMb, pin, resetPeakRss } from './process-stats.js';
import { startHeapFlags } from './start-heap-flags.js';
import { startStoreStandIn, type StoreStandIn } from './store-stand-in-process.js';

/**
 * `npm run bench:heap`: V8 heap flags for the local runtime, compared side by side. One bundled
 * gateway per set of flags (`BENCH_HEAP_VARIANTS`, sets separated by `|`; by default `npm start`'s,
 * V8's own, and 8 MB and 16 MB semi-spaces), each pinned to the same CPU, take turns slice by slice
 * under the same 32-way load, for a plain key and for one with a rate limit and a quota; the host's
 * drift over the run then falls on every variant alike, where separate runs of the same code can
 * differ by a third. Prints the CPU per request of each and its peak RSS under that load.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SLICE = Number(process.env.BENCH_SLICE ?? 1000);
const CONCURRENCY = 32;
const SERVER_CPU = 1;
const LOAD_CPU = 0;

const startFlags = startHeapFlags();
const variants = (
  process.env.BENCH_HEAP_VARIANTS ??
  [
    startFlags.join(' '),
    '',
    ...[8, 16].map((megabytes) =>
      startFlags
        .map((flag) => flag.replace(/^--max-semi-space-size=\d+$/, `--max-semi-space-size=${megabytes}`))
        .join(' '),
    ),
  ].join('|')
)
  .split('|')
  .map((flags) => flags.split(' ').filter(Boolean));

pin(process.pid, LOAD_CPU);
const upstream = await startFakeUpstream(undefined, { keepAliveTimeoutMs: 10 * 60_000 });
const bundle = await bundledServer(path.join('test', 'bench', 'gateway-process.ts'));

interface Gateway {
  readonly flags: readonly string[];
  readonly child: ChildProcess;
  readonly store: StoreStandIn;
  readonly url: string;
  readonly keys: BenchKeys;
  readonly cpuMicros: { plain: number; limited: number };
  peakRssMb: number;
}

const startGateway = async (flags: readonly string[]): Promise<Gateway> => {
  const adminKey = generateApiKey().key;
  // Each gateway its own store, as `npm run bench` gives it (store-stand-in.ts).
  const store = await startStoreStandIn(LOAD_CPU);
  const child = fork(bundle, {
    execArgv: [...flags],
    env: { ...process.env, BENCH_ADMIN_KEY: adminKey, BENCH_STORE_ENDPOINT: store.url, GATEWAY_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  pin(child.pid!, SERVER_CPU);
  const gatewayAdmin = benchAdmin(ready.url, adminKey);
  await gatewayAdmin.addChannel('bench', upstream.baseUrl, 'bench-model');
  const keys = await gatewayAdmin.createKeys();
  return { flags, child, store, url: ready.url, keys, cpuMicros: { plain: 0, limited: 0 }, peakRssMb: 0 };
};

const body = JSON.stringify({
  model: 'bench-model',
  messages: [{ role: 'user', content: 'How fast is this gateway?' }],
});

/** `count` chat requests, 32 at a time, with `key`; every answer must be a 200. */
const load = (gateway: Gateway, key: string, count: number) =>
  concurrently(count, CONCURRENCY, async () => {
    const timing = await post(`${gateway.url}/v1/chat/completions`, { authorization: `Bearer ${key}` }, body);
    if (timing.status !== 200) throw new Error(`status ${timing.status}`);
  });

const gateways: Gateway[] = [];
for (const flags of variants) gateways.push(await startGateway(flags));
for (const gateway of gateways) {
  await load(gateway, gateway.keys.plain, 2 * SLICE);
  await load(gateway, gateway.keys.limited, SLICE);
}
for (let round = 0; round < ROUNDS; round += 1) {
  // Every other round in reverse, so that no variant always follows the same one.
  for (const gateway of round % 2 === 0 ? gateways : [...gateways].reverse()) {
    for (const kind of ['plain', 'limited'] as const) {
      const pid = gateway.child.pid!;
      resetPeakRss(pid);
      const before = cpuMicros(pid);
      await load(gateway, gateway.keys[kind], SLICE);
      gateway.cpuMicros[kind] += cpuMicros(pid) - before;
      gateway.peakRssMb = Math.max(gateway.peakRssMb, peakRssMb(pid));
    }
  }
}

const requests = ROUNDS * SLICE;
console.log(
  `V8 heap flags side by side: ${ROUNDS} rounds of ${SLICE} requests per key at c=${CONCURRENCY}, ` +
    `gateways pinned to CPU ${SERVER_CPU}${hasTaskset ? '' : ' (taskset missing: not pinned)'}\n`,
);
console.log('| flags | CPU per request | with rate limit + quota | peak RSS under 32-way load |\n|---|---|---|---|');
for (const gateway of gateways) {
  const perRequest = (micros: number) => `${(micros / requests).toFixed(0)} µs`;
  console.log(
    `| ${gateway.flags.join(' ') || "V8's defaults"}${gateway.flags.join(' ') === startFlags.join(' ') ? ' (`npm start`)' : ''} | ` +
      `${perRequest(gateway.cpuMicros.plain)} | ${perRequest(gateway.cpuMicros.limited)} | ${gateway.peakRssMb.toFixed(0)} MB |`,
  );
}

for (const gateway of gateways) gateway.child.send({ kind: 'stop' });
await Promise.all(gateways.map((gateway) => once(gateway.child, 'exit')));
for (const gateway of gateways) gateway.store.stop();
await upstream.close();
process.exit(0);
