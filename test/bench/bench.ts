import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { percentile, post, type Timing } from './http-client.js';

/**
 * `npm run bench`: the gateway's own cost, measured against calling the same loopback upstream
 * directly in the same run (DESIGN §6). Sequential latency, throughput at a fixed concurrency, CPU
 * per request, stream time to first byte, and peak memory of the gateway process.
 */
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const adminKey = generateApiKey().key;
const upstream = await startFakeUpstream();
const child: ChildProcess = fork(fileURLToPath(new URL('./gateway-process.ts', import.meta.url)), {
  // BENCH_CPU_PROFILE=dir writes a V8 CPU profile of the gateway process there, for finding hot spots.
  execArgv: [
    '--import',
    'tsx',
    ...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []),
  ],
  env: { ...process.env, BENCH_ADMIN_KEY: adminKey, GATEWAY_LOG_LEVEL: 'error' },
});
const ask = async <T>(kind: string): Promise<T> => {
  child.send({ kind });
  for (;;) {
    const [message] = (await once(child, 'message')) as [{ kind: string } & T];
    if (message.kind === kind) return message;
  }
};
const [{ url, store }] = (await once(child, 'message')) as [{ kind: 'ready'; url: string; store: string }];

const admin = async (method: string, path: string, body: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<any>;
};

await admin('PUT', '/admin/v1/channels/bench', {
  type: 'openai',
  baseUrl: upstream.baseUrl,
  apiKey: 'sk-bench-upstream',
  models: ['bench-model'],
});
await admin('PUT', '/admin/v1/models/bench-model', { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
const plainAccount = await admin('POST', '/admin/v1/accounts', { name: 'bench plain' });
const plainKey = (await admin('POST', '/admin/v1/keys', { accountId: plainAccount.id })).key as string;
const limitedAccount = await admin('POST', '/admin/v1/accounts', {
  name: 'bench limited',
  quota: { limit: 1_000_000 },
  rateLimit: { rpm: 10_000_000, tpm: 1_000_000_000 },
});
const limitedKey = (await admin('POST', '/admin/v1/keys', { accountId: limitedAccount.id })).key as string;

const body = (stream: boolean) =>
  JSON.stringify({ model: 'bench-model', stream, messages: [{ role: 'user', content: 'How fast is this gateway?' }] });
const direct = (stream = false) =>
  post(`${upstream.baseUrl}/chat/completions`, { authorization: 'Bearer sk-bench-upstream' }, body(stream));
const viaGateway = (key: string, stream = false) =>
  post(`${url}/v1/chat/completions`, { authorization: `Bearer ${key}` }, body(stream));

const sequential = async (call: () => Promise<Timing>, count = SEQUENTIAL): Promise<Timing[]> => {
  const timings: Timing[] = [];
  for (let index = 0; index < count; index++) {
    const timing = await call();
    if (timing.status !== 200) throw new Error(`status ${timing.status}`);
    timings.push(timing);
  }
  return timings;
};

const throughput = async (call: () => Promise<Timing>): Promise<number> => {
  const deadline = Date.now() + THROUGHPUT_SECONDS * 1000;
  let completed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await call();
        completed += 1;
      }
    }),
  );
  return completed / THROUGHPUT_SECONDS;
};

const cpuMicros = async () => {
  const { usage, storeMicros } = await ask<{ usage: NodeJS.CpuUsage; storeMicros?: number }>('cpu');
  return { gateway: usage.user + usage.system, store: storeMicros };
};

const ms = (value: number) => `${value.toFixed(3)} ms`;

// Warm up both paths (JIT, connection pools, caches).
await sequential(() => direct(), 100);
await sequential(() => viaGateway(plainKey), 100);
await sequential(() => viaGateway(limitedKey), 100);

const directTimings = await sequential(() => direct());
const cpuBefore = await cpuMicros();
const plainTimings = await sequential(() => viaGateway(plainKey));
const cpuAfter = await cpuMicros();
const cpuPerRequest = cpuAfter.gateway - cpuBefore.gateway;
const storeCpuPerRequest =
  cpuAfter.store !== undefined && cpuBefore.store !== undefined ? cpuAfter.store - cpuBefore.store : undefined;
const limitedTimings = await sequential(() => viaGateway(limitedKey));
const directStream = await sequential(() => direct(true), 200);
const gatewayStream = await sequential(() => viaGateway(plainKey, true), 200);
const directRps = await throughput(() => direct());
const gatewayRps = await throughput(() => viaGateway(plainKey));
const memory = await ask<{ maxRssKb: number; storeMaxRssKb?: number }>('memory');

const totals = (timings: Timing[]) => timings.map((timing) => timing.totalMs);
const added = (timings: Timing[], p: number) => percentile(totals(timings), p) - percentile(totals(directTimings), p);
const rows: [string, string, string][] = [
  ['added latency p50, key without limits', ms(added(plainTimings, 50)), '≤ 1 ms'],
  ['added latency p99, key without limits', ms(added(plainTimings, 99)), ''],
  ['added latency p50, rate limit + quota', ms(added(limitedTimings, 50)), '≤ 3 ms'],
  ['added latency p99, rate limit + quota', ms(added(limitedTimings, 99)), ''],
  ['gateway CPU per request', ms(cpuPerRequest / 1000 / SEQUENTIAL), '≤ 0.3 ms'],
  [
    'stream time to first byte, added p50',
    ms(
      percentile(
        gatewayStream.map((timing) => timing.firstByteMs),
        50,
      ) -
        percentile(
          directStream.map((timing) => timing.firstByteMs),
          50,
        ),
    ),
    '≤ 1 ms',
  ],
  [`requests/s at concurrency ${CONCURRENCY}, direct`, directRps.toFixed(0), ''],
  [`requests/s at concurrency ${CONCURRENCY}, gateway`, gatewayRps.toFixed(0), ''],
  ['peak memory of the gateway process', `${(memory.maxRssKb / 1024).toFixed(0)} MB`, '≤ 150 MB'],
  // The embedded store runs in its own process (as DynamoDB is its own service): shown apart, not in the budgets.
  ...(storeCpuPerRequest !== undefined
    ? [
        ['embedded store CPU per request (own process)', ms(storeCpuPerRequest / 1000 / SEQUENTIAL), ''] as [
          string,
          string,
          string,
        ],
      ]
    : []),
  ...(memory.storeMaxRssKb !== undefined
    ? [
        ['peak memory of the embedded store process', `${(memory.storeMaxRssKb / 1024).toFixed(0)} MB`, ''] as [
          string,
          string,
          string,
        ],
      ]
    : []),
];
process.stdout.write(
  `model-gateway bench: ${SEQUENTIAL} sequential requests per path, loopback fake upstream, embedded store ${store}\n\n`,
);
for (const [name, value, target] of rows)
  process.stdout.write(`${name.padEnd(46)} ${value.padStart(12)}   ${target}\n`);
process.stdout.write(
  `\ndirect p50 ${ms(percentile(totals(directTimings), 50))}, gateway p50 ${ms(percentile(totals(plainTimings), 50))}\n`,
);

// The gateway answers `stop` by closing and exiting: wait for the exit, not for a reply.
child.send({ kind: 'stop' });
await once(child, 'exit');
await upstream.close();
process.exit(0);
