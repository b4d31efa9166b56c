/**
 * `npm run bench:instances`: the chat function as Lambda Managed Instances run it. One execution
 * environment (2,048 MB, one vCPU: the memory the managed-instances construct gives the functions, at
 * the default two GB per vCPU) is one process calling the bundle's streaming handler as a
 * multi-concurrency runtime does, many invocations at once (`instances-harness.mjs`), in a cgroup of
 * that memory and CPU. The harness stands in for AWS's runtime interface client: under aws-lambda-ric
 * 4.0.2 each of its worker threads posts streamed responses over one socket (an HTTP agent of one
 * socket), so a worker's concurrent streams reach the Runtime API one after another, and what the
 * gateway itself costs per stream would not show. It is handed `BENCH_INSTANCES_STREAMS` (1,000) streams at once, each relayed from a loopback fake
 * upstream that sends 20 chunks a second, and measures, while all of them are in flight and none starts
 * or ends: the memory each in-flight stream holds and the CPU each relayed chunk costs (cgroup
 * accounting). From them it derives the invocations one environment should serve at once
 * (`perExecutionEnvironmentMaxConcurrency`) and the environments and instances 1,000 streams need.
 *
 * Needs root and cgroups, as `bench:lambda` does; without them it says so and exits 0. Loopback only;
 * it ends when the streams do (about `BENCH_INSTANCES_STREAM_S` + the ramp, 25 s by default).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { bundleAll } from '../../infra/build/bundle.js';
import { functionEnvironment } from '../../infra/build/bundle-runner.js';
import { wrappedCommand } from '../../infra/build/exec-wrapper.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { proxyEvent } from '../support/proxy-event.js';
import { benchAdmin } from './bench-setup.js';
import { cgroupSupport, cpuShareOf, makeCgroup } from './lambda-cgroup.js';
import { heapFlagsOf } from './lambda-sandbox.js';
import { startStoreStandIn } from './store-stand-in-process.js';

const support = cgroupSupport();
if (support.version === undefined) {
  console.log(`bench:instances skipped: ${support.reason}. It runs the chat bundle in a cgroup.`);
  process.exit(0);
}

/** The environment: the construct's memory size, and one vCPU (Lambda Managed Instances' default 2:1 ratio). */
const MEMORY_MB = 2048;
const STREAMS = Number(process.env.BENCH_INSTANCES_STREAMS ?? 1000);
/** Chunks a second in each stream, at the upstream. */
const CHUNKS_PER_SECOND = 20;
/** How long each stream lasts at that pace: long enough that all are in flight during the window. */
const STREAM_S = Number(process.env.BENCH_INSTANCES_STREAM_S ?? 15);
/** The streams start evenly over this many seconds, as traffic arrives, not in one burst. */
const RAMP_S = Number(process.env.BENCH_INSTANCES_RAMP_S ?? 5);
/** The measured window, after the ramp and a settling second. */
const WINDOW_S = Number(process.env.BENCH_INSTANCES_WINDOW_S ?? 5);
/** The share of the vCPU and of the memory an environment may use at its maximum concurrency. */
const HEADROOM = 0.7;
/** An m7g.large's vCPUs and memory: the instance type the cost figures use (docs/cost.md). */
const INSTANCE = { name: 'm7g.large', vcpus: 2, memoryMb: 8192 };

const MB = 1024 * 1024;
const HARNESS = fileURLToPath(new URL('instances-harness.mjs', import.meta.url));
const work = await mkdtemp(path.join(os.tmpdir(), 'gateway-bench-instances-'));
const cleanUps: Array<() => unknown> = [() => rm(work, { recursive: true, force: true })];

try {
  console.log('Building the chat bundle …');
  const [bundle] = await bundleAll(['chat'], path.join(work, 'dist'));
  const store = await startStoreStandIn(0);
  cleanUps.push(() => store.stop());
  const upstream = await startFakeUpstream(undefined, {
    keepAliveTimeoutMs: 10 * 60_000,
    standingFault: { kind: 'slow-stream', gapMs: 1000 / CHUNKS_PER_SECOND },
  });
  cleanUps.push(() => upstream.close());
  const adminKey = generateApiKey().key;
  process.env.GATEWAY_LOG_LEVEL ??= 'warn';
  const local = await startLocalGateway({ port: 0, dataDir: 'memory', adminKey, dynamodbEndpoint: store.url });
  const admin = benchAdmin(local.url, adminKey);
  await admin.addChannel('bench-paced', upstream.baseUrl, 'bench-paced-model');
  const { plain: userKey } = await admin.createKeys();
  await local.close();

  // The fake upstream echoes the prompt one word per chunk: a prompt of N words is a stream of N chunks.
  const streamEvent = (words: number, index: number) =>
    proxyEvent({
      resource: '/v1/chat/completions',
      path: '/v1/chat/completions',
      httpMethod: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'bench-paced-model',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: Array.from({ length: words }, () => 'word').join(' ') }],
      }),
      requestContext: { requestId: `instances-${index}`, identity: { sourceIp: '127.0.0.1' }, stage: 'v1' },
    } as never);

  const words = STREAM_S * CHUNKS_PER_SECOND;
  const planFile = path.join(work, 'plan.json');
  await writeFile(
    planFile,
    JSON.stringify({
      // Every route's first requests (code loaded, compiled, caches filled) before anything is counted.
      warmUp: Array.from({ length: 4 }, (_, round) =>
        Array.from({ length: 64 }, (_, index) => streamEvent(5, round * 64 + index)),
      ),
      streams: Array.from({ length: STREAMS }, (_, index) => streamEvent(words, index)),
      rampMs: RAMP_S * 1000,
      windowMs: WINDOW_S * 1000,
    }),
  );
  const cgroup = makeCgroup(support, `model-gateway-bench-instances-${process.pid}`, MEMORY_MB);
  cleanUps.push(() => cgroup.remove());
  const join = cgroup.procsFiles.map((_, index) => `echo $$ > "$${index + 1}"`).join(' && ');
  console.log(`Running ${STREAMS} streams of ${words} chunks, started over ${RAMP_S} s …`);
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `${join} && shift ${cgroup.procsFiles.length} && exec "$@"`,
      'sh',
      ...cgroup.procsFiles,
      // Through the function's exec wrapper, as deployed.
      ...wrappedCommand(
        [process.execPath, ...heapFlagsOf(MEMORY_MB), HARNESS, bundle!.outfile, planFile],
        functionEnvironment('chat'),
        path.dirname(bundle!.outfile),
      ),
    ],
    {
      env: {
        ...process.env,
        ...functionEnvironment('chat'),
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(MEMORY_MB),
        AWS_LAMBDA_MAX_CONCURRENCY: String(STREAMS),
        DYNAMODB_ENDPOINT: store.url,
        GATEWAY_CACHE_TTL_MS: '60000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const phases = new Map<string, { at: number; cpuNanos: number; usageBytes: number; value: string }>();
  const usage: number[] = [];
  let sampling: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [phase = '', ...rest] = line.split(' ');
      phases.set(phase, {
        at: performance.now(),
        cpuNanos: cgroup.cpuNanos(),
        usageBytes: cgroup.usageBytes(),
        value: rest.join(' '),
      });
      if (phase === 'window-start') sampling = setInterval(() => usage.push(cgroup.usageBytes()), 250);
      if (phase === 'window-end') clearInterval(sampling);
    });
    child.once('exit', (code, signal) =>
      phases.has('done') ? resolve() : reject(new Error(`the harness exited (${signal ?? code})`)),
    );
  });
  await ended;
  const idle = phases.get('idle')!;
  const windowStart = phases.get('window-start')!;
  const windowEnd = phases.get('window-end')!;
  const done = phases.get('done')!;
  const [errorCount = '0', ...firstError] = done.value.split(' ');
  const errors = Number(errorCount);
  const windowMs = windowEnd.at - windowStart.at;
  const cpuMs = (windowEnd.cpuNanos - windowStart.cpuNanos) / 1e6;
  const chunks = Number(windowEnd.value) - Number(windowStart.value);
  const wholeCpuMs = (done.cpuNanos - idle.cpuNanos) / 1e6;
  const idleBytes = idle.usageBytes;
  const inFlightAtWindow = STREAMS;
  const peakMb = cgroup.peakBytes() / MB;
  const oomKills = cgroup.oomKills();
  const usageMb = usage.reduce((sum, bytes) => sum + bytes, 0) / Math.max(1, usage.length) / MB;

  const cpuPerChunkMs = cpuMs / chunks;
  const memoryPerStreamMb = (usageMb - idleBytes / MB) / inFlightAtWindow;
  const vcpuAtFull = cpuMs / windowMs;
  const achievedRate = chunks / (windowMs / 1000) / inFlightAtWindow;
  /** A stream's own CPU beyond its chunks: its invocation, its end and its usage record. */
  const perStreamMs = Math.max(0, (wholeCpuMs - cpuPerChunkMs * STREAMS * words) / STREAMS);
  // A 10-second stream at 20 chunks a second (docs/cost.md's stream), in vCPU-seconds per second.
  const vcpuPerStream = (cpuPerChunkMs * CHUNKS_PER_SECOND + perStreamMs / 10) / 1000;
  const byCpu = Math.floor((HEADROOM * cpuShareOf(MEMORY_MB)) / vcpuPerStream);
  const byMemory = Math.floor((HEADROOM * MEMORY_MB - idleBytes / MB) / memoryPerStreamMb);
  const maxConcurrency = Math.min(byCpu, byMemory);
  const environments = Math.ceil(1000 / maxConcurrency);
  const perInstance = Math.min(INSTANCE.vcpus / cpuShareOf(MEMORY_MB), Math.floor(INSTANCE.memoryMb / MEMORY_MB));
  const instances = Math.ceil(environments / perInstance);

  const rows: Array<[string, string]> = [
    [
      'environment',
      `${MEMORY_MB} MB, ${cpuShareOf(MEMORY_MB)} vCPU (cgroup v${support.version}), one process (the handler called directly)`,
    ],
    ['streams in flight during the window', String(inFlightAtWindow)],
    ['chunk pace achieved', `${achievedRate.toFixed(1)} chunks/s per stream (asked: ${CHUNKS_PER_SECOND})`],
    ['vCPU used with all in flight', vcpuAtFull.toFixed(2)],
    ['CPU per chunk relayed', `${(cpuPerChunkMs * 1000).toFixed(1)} µs`],
    ['CPU per stream beyond its chunks (invocation, end, usage record)', `${perStreamMs.toFixed(2)} ms`],
    ['vCPU per 10-second stream at 20 chunks/s', vcpuPerStream.toFixed(5)],
    ['memory idle (after warm-up)', `${(idleBytes / MB).toFixed(0)} MB`],
    ['memory with all in flight (mean)', `${usageMb.toFixed(0)} MB; peak ${peakMb.toFixed(0)} MB`],
    ['memory per in-flight stream', `${(memoryPerStreamMb * 1024).toFixed(0)} KB`],
    ['errors / OOM kills', `${errors} / ${oomKills}`],
    [`streams per environment at ${HEADROOM * 100} % of its vCPU`, String(byCpu)],
    [`streams per environment at ${HEADROOM * 100} % of its memory`, String(byMemory)],
    ['perExecutionEnvironmentMaxConcurrency', String(maxConcurrency)],
    ['environments per 1,000 concurrent streams', String(environments)],
    [`${INSTANCE.name} instances per 1,000 concurrent streams`, `${instances} (${perInstance} environments each)`],
  ];
  console.log(`\n| figure | value |\n|---|---|\n${rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n')}`);
  if (errors > 0) console.log(`\nfirst error: ${firstError.join(' ')}`);
  console.log(
    '\nCPU and memory come from the cgroup; the pace may fall short on a loaded host, the figures per chunk hold.',
  );
} finally {
  for (const step of cleanUps.reverse()) await step();
}
process.exit(0);
