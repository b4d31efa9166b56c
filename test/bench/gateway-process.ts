import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { handlerPathCpuMicros } from './handler-path.js';

/**
 * The gateway under measurement, in its own process so that its CPU time and memory are its own.
 * Answers `cpu` and `memory` questions from the bench over IPC, for the gateway and, apart, for the
 * embedded store's child process (read from /proc, so only on Linux).
 */
// BENCH_STORE=in-process runs the embedded store in the gateway's process, to compare with the default.
const store = process.env.BENCH_STORE === 'in-process' ? 'in-process' : 'child-process';
// BENCH_STORE_ENDPOINT: the bench's own stand-in for DynamoDB (store-stand-in.ts), measured apart by the bench.
const dynamodbEndpoint = process.env.BENCH_STORE_ENDPOINT || undefined;
// The key, channel and model caches stay on, as with the embedded store: this process is the only writer.
if (dynamodbEndpoint) process.env.GATEWAY_CACHE_TTL_MS ??= '30000';
const gateway = await startLocalGateway({
  port: 0,
  dataDir: 'memory',
  adminKey: process.env.BENCH_ADMIN_KEY,
  store,
  dynamodbEndpoint,
});

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

const readProc = (file: string): string | undefined => {
  if (gateway.storeProcessId === undefined) return undefined;
  try {
    return readFileSync(`/proc/${gateway.storeProcessId}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
};

/** User + system CPU of the store process in microseconds (utime and stime, fields 14 and 15 of stat). */
const storeCpuMicros = (): number | undefined => {
  const stat = readProc('stat');
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond) * 1e6;
};

const storeMaxRssKb = (): number | undefined => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readProc('status') ?? '');
  return match ? Number(match[1]) : undefined;
};

process.send!({ kind: 'ready', url: gateway.url, store, storeProcessId: gateway.storeProcessId });
process.on('message', (message: { kind: string; key?: string; body?: string; count?: number }) => {
  if (message.kind === 'handler-path') {
    void handlerPathCpuMicros(message.key!, message.body!, message.count!).then((cpu) =>
      process.send!({ kind: 'handler-path', cpu }),
    );
  }
  if (message.kind === 'cpu') process.send!({ kind: 'cpu', usage: process.cpuUsage(), storeMicros: storeCpuMicros() });
  if (message.kind === 'memory') {
    process.send!({
      kind: 'memory',
      maxRssKb: process.resourceUsage().maxRSS,
      rss: process.memoryUsage().rss,
      storeMaxRssKb: storeMaxRssKb(),
    });
  }
  if (message.kind === 'stop') void gateway.close().then(() => process.exit(0));
});
process.on('disconnect', () => void gateway.close().then(() => process.exit(0)));
