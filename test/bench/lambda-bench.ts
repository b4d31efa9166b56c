/**
 * `npm run bench:lambda`: each function group's bundle run as Lambda runs it (AWS's runtime interface
 * client polling a Runtime API), in a cgroup sized like each Lambda memory setting, beside a
 * hello-world handler run the same way, against a fake upstream on this host (loopback only). Prints
 * one table per group and writes every figure as JSON to `BENCH_OUT` (if set).
 *
 * Needs root and cgroups (v1 or v2): without them it says so and exits 0. CPU per invocation comes
 * from the cgroup's CPU accounting, in windows of 25 back-to-back invocations taken alternately with
 * a hello-world instance's of the same size (and, for chat, the relay floor's); the CPU beyond hello's
 * is the median of the round-by-round differences (`lambda-measure.ts` says why: the host's speed
 * drifts). Latencies change with other work on the host, so on a shared host compare several runs.
 *
 * `BENCH_LAMBDA_GROUPS` (comma-separated) and `BENCH_LAMBDA_SIZES` (MB) narrow the run. Each function
 * starts through its exec wrapper, as deployed; `BENCH_LAMBDA_EXEC_WRAPPER=off` starts it without
 * (Node's own tiering), to weigh what the wrapper's flags do. The functions that leave usage records
 * deliver them as the stack does by default, as log lines (usage-delivery.ts), and the relay floor
 * writes one as they do; `BENCH_LAMBDA_USAGE_DELIVERY=store` has both put them in the store instead.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { USAGE_DELIVERY_VARIABLE, type UsageDelivery } from '../../functions/shared/accounting/usage-delivery.js';
import { functionGroups, type FunctionGroup } from '../../functions/shared/routes.js';
import { physicalTableName, tableDefinitions } from '../../functions/shared/store/tables.js';
import { bundleAll } from '../../infra/build/bundle.js';
import { EXEC_WRAPPER_ON_LAMBDA, writeExecWrapper } from '../../infra/build/exec-wrapper.js';
import { functionEnvironment, lambdaLikeEnvironment } from '../../infra/build/bundle-runner.js';
import { writesUsageRecords } from '../../infra/constructs/table-grants.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { openAiEmbeddingsRoutes } from '../support/fake-upstream/openai-embeddings-wire.js';
import { openAiImagesRoutes } from '../support/fake-upstream/openai-images-wire.js';
import { openAiSpeechRoutes } from '../support/fake-upstream/openai-speech-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { benchAdmin, chatBody } from './bench-setup.js';
import { percentile, post } from './http-client.js';
import { cgroupSupport, cpuShareOf } from './lambda-cgroup.js';
import { groupEvents, type BenchModels } from './lambda-events.js';
import { defaultCounts, measureInstances, type InstanceSpec } from './lambda-measure.js';
import {
  chosenSize,
  cpuBeyond,
  cpuBeyondHello,
  missedTargets,
  table,
  type InstanceFigures,
  type SizeRow,
} from './lambda-table.js';
import { startStoreStandIn } from './store-stand-in-process.js';
import { median } from '../../infra/build/bundle-runner.js';

const support = cgroupSupport();
if (support.version === undefined) {
  console.log(`bench:lambda skipped: ${support.reason}. It runs each bundle in a cgroup per memory size.`);
  process.exit(0);
}

const SIZES = (process.env.BENCH_LAMBDA_SIZES ?? '128,256,512,1024').split(',').map(Number);
const GROUPS = (process.env.BENCH_LAMBDA_GROUPS?.split(',') ?? Object.keys(functionGroups)) as FunctionGroup[];
for (const group of GROUPS) if (!(group in functionGroups)) throw new Error(`BENCH_LAMBDA_GROUPS: no group ${group}`);
/** Gap between a paced stream's chunks at the upstream: its first chunk stands apart from the rest. */
const STREAM_GAP_MS = 10;

const workDirectory = await mkdtemp(path.join(os.tmpdir(), 'gateway-bench-lambda-'));
const cleanUps: Array<() => Promise<unknown> | unknown> = [() => rm(workDirectory, { recursive: true, force: true })];
const cleanUp = async () => {
  for (const step of cleanUps.splice(0).reverse()) await step();
};

try {
  console.log(`Building the bundles (${GROUPS.join(', ')}) …`);
  const bundles = new Map(
    (await bundleAll(GROUPS, path.join(workDirectory, 'dist'))).map((result) => [result.group, result.outfile]),
  );
  const helloOutfile = path.join(workDirectory, 'hello', 'index.mjs');
  await mkdir(path.dirname(helloOutfile));
  await writeFile(helloOutfile, "export const handler = async () => ({ statusCode: 200, body: 'hello' });\n");
  await writeExecWrapper(path.dirname(helloOutfile));
  const floorOutfile = path.join(workDirectory, 'relay-floor', 'index.mjs');
  await mkdir(path.dirname(floorOutfile));
  await copyFile(fileURLToPath(new URL('relay-floor.mjs', import.meta.url)), floorOutfile);
  await writeExecWrapper(path.dirname(floorOutfile));

  // DynamoDB's stand-in in a process of its own, as DynamoDB is another service; the upstreams here.
  const store = await startStoreStandIn(0);
  cleanUps.push(() => store.stop());
  const quick = await startFakeUpstream(
    { ...openAiRoutes, ...openAiEmbeddingsRoutes, ...openAiImagesRoutes, ...openAiSpeechRoutes },
    { keepAliveTimeoutMs: 10 * 60_000 },
  );
  cleanUps.push(() => quick.close());
  const paced = await startFakeUpstream(undefined, {
    keepAliveTimeoutMs: 10 * 60_000,
    standingFault: { kind: 'slow-stream', gapMs: STREAM_GAP_MS },
  });
  cleanUps.push(() => paced.close());

  // The records the functions read are written through the admin API of a local gateway on the same store.
  const adminKey = generateApiKey().key;
  process.env.GATEWAY_LOG_LEVEL ??= 'warn';
  const local = await startLocalGateway({ port: 0, dataDir: 'memory', adminKey, dynamodbEndpoint: store.url });
  const admin = benchAdmin(local.url, adminKey);
  const models: BenchModels = { quick: 'bench-model', paced: 'bench-paced-model' };
  await admin.addChannel('bench', quick.baseUrl, models.quick);
  await admin.addChannel('bench-paced', paced.baseUrl, models.paced);
  const { plain: userKey } = await admin.createKeys();
  await local.close();

  /** The upstream's own time for the same requests at the same pace, asked from here. */
  const upstreamOwn = async () => {
    const headers = { authorization: 'Bearer sk-bench-upstream' };
    // A connection, and the upstream's own first requests, before anything is timed.
    for (let index = 0; index < 20; index += 1)
      await post(`${quick.baseUrl}/chat/completions`, headers, chatBody(false, models.quick));
    const whole: number[] = [];
    for (let index = 0; index < defaultCounts.paced; index += 1) {
      whole.push((await post(`${quick.baseUrl}/chat/completions`, headers, chatBody(false, models.quick))).totalMs);
      await new Promise((resolve) => setTimeout(resolve, defaultCounts.paceMs));
    }
    const firstBytes: number[] = [];
    for (let index = 0; index < defaultCounts.streams; index += 1)
      firstBytes.push(
        (await post(`${paced.baseUrl}/chat/completions`, headers, chatBody(true, models.paced))).firstByteMs,
      );
    return { p50Ms: percentile(whole, 50), p99Ms: percentile(whole, 99), firstByteMs: median(firstBytes) };
  };

  const withWrapper = process.env.BENCH_LAMBDA_EXEC_WRAPPER !== 'off';
  // Hello starts as the functions do, through the wrapper or not: what is beyond hello's is then the
  // function's own work, not a difference in how the runtime client's code was compiled.
  const usageDelivery: UsageDelivery = process.env.BENCH_LAMBDA_USAGE_DELIVERY === 'store' ? 'store' : 'log';
  const environmentOf = (group: FunctionGroup | 'hello-world'): NodeJS.ProcessEnv => ({
    ...(group === 'hello-world'
      ? { ...lambdaLikeEnvironment(group), AWS_LAMBDA_EXEC_WRAPPER: EXEC_WRAPPER_ON_LAMBDA }
      : functionEnvironment(group)),
    ...(group !== 'hello-world' && writesUsageRecords(group) && { [USAGE_DELIVERY_VARIABLE]: usageDelivery }),
    ...(!withWrapper && { AWS_LAMBDA_EXEC_WRAPPER: undefined }),
    DYNAMODB_ENDPOINT: store.url,
    GATEWAY_CACHE_TTL_MS: '30000',
  });

  const rows = new Map<FunctionGroup, SizeRow[]>(GROUPS.map((group) => [group, []]));
  const firstErrors: Record<string, string> = {};
  for (const memoryMb of SIZES) {
    const upstream = await upstreamOwn();
    for (const group of GROUPS) {
      const spec = (outfile: string, environment: NodeJS.ProcessEnv, events = group): InstanceSpec => ({
        support,
        memoryMb,
        outfile,
        environment,
        events: groupEvents(events, userKey, adminKey, models),
      });
      // Hello beside each group's function, and beside the chat function the least a relay with the
      // same I/O costs (relay-floor.mjs): measured together, their back-to-back windows alternate.
      const names = [' (hello)', '', ' (relay floor)'];
      const measured = await measureInstances([
        spec(helloOutfile, environmentOf('hello-world'), 'fallback'),
        spec(bundles.get(group)!, environmentOf(group)),
        ...(group === 'chat'
          ? [
              spec(floorOutfile, {
                ...environmentOf('hello-world'),
                RELAY_FLOOR_UPSTREAM: quick.baseUrl,
                RELAY_FLOOR_USAGE_TABLE: physicalTableName('usage'),
                RELAY_FLOOR_USAGE_KEYS: `${tableDefinitions.usage.partitionKey},${tableDefinitions.usage.sortKey}`,
                RELAY_FLOOR_USAGE_DELIVERY: usageDelivery,
              }),
            ]
          : []),
      ]);
      const [hello, fn, floor] = measured.map(({ firstError, ...figures }, index) => {
        if (firstError) firstErrors[`${group}@${memoryMb}${names[index]}`] = firstError;
        return figures;
      }) as [InstanceFigures, InstanceFigures, InstanceFigures?];
      rows.get(group)!.push({ memoryMb, cpuShare: cpuShareOf(memoryMb), fn, hello, upstream, ...(floor && { floor }) });
      console.log(
        `  ${group} at ${memoryMb} MB: ${fn.cpuPerInvocationMs.toFixed(2)} ms CPU per invocation (hello ${hello.cpuPerInvocationMs.toFixed(2)})`,
      );
    }
  }

  for (const [group, groupRows] of rows) {
    const chosen = chosenSize(groupRows);
    console.log(
      `\n${group} (today ${functionGroups[group].memorySize} MB; smallest size meeting the targets: ${chosen ? `${chosen} MB` : 'none'})\n`,
    );
    console.log(table(groupRows));
    for (const row of groupRows) {
      const missed = missedTargets(row);
      console.log(
        `  ${row.memoryMb} MB: CPU beyond hello ${cpuBeyondHello(row).toFixed(2)} ms${row.floor ? ` (a minimal relay's with the same I/O: ${cpuBeyond(row.floor, row.hello).toFixed(2)} ms)` : ''}, init ${(row.fn.initMs / row.hello.initMs).toFixed(2)}× hello's${missed.length ? `; misses ${missed.join(', ')}` : ''}`,
      );
    }
  }
  for (const [where, message] of Object.entries(firstErrors)) console.log(`\nfirst error, ${where}: ${message}`);
  console.log('\nLatencies vary with other work on this host, CPU per invocation less so: compare several runs.');

  if (process.env.BENCH_OUT) {
    const out = {
      measuredAt: new Date().toISOString(),
      host: { cpus: os.cpus().length, cgroupVersion: support.version, node: process.version },
      execWrapper: withWrapper,
      counts: defaultCounts,
      groups: Object.fromEntries(
        [...rows].map(([group, groupRows]) => [
          group,
          { chosenMemoryMb: chosenSize(groupRows) ?? null, sizes: groupRows },
        ]),
      ),
    };
    await writeFile(process.env.BENCH_OUT, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`figures written to ${process.env.BENCH_OUT}`);
  }
} finally {
  await cleanUp();
}
process.exit(0);
