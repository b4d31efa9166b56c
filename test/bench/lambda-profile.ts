/**
 * `tsx test/bench/lambda-profile.ts [group] [memoryMb]`: a V8 CPU profile (`--cpu-prof`) of a
 * function's bundle under the runtime interface client, in its cgroup, over back-to-back invocations
 * of its everyday request, summarised by function self time per invocation. The bundle is built with
 * the deployed options but with its names kept, so that the profile reads; init is left out of the
 * summary (samples before the first invocation).
 *
 * Same set-up as `bench:lambda` (store stand-in, fake upstream, keys); `BENCH_PROFILE_INVOCATIONS`
 * sets how many invocations are profiled (default 400), `BENCH_PROFILE_WARM_UP` how many come before
 * them (default 20), `BENCH_PROFILE_KIND=large` profiles the 1 MB prompt instead of the everyday
 * request, `BENCH_PROFILE_TOP` how many rows print.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { esbuildOptions } from '../../infra/build/esbuild-options.js';
import { writeExecWrapper } from '../../infra/build/exec-wrapper.js';
import { functionEnvironment } from '../../infra/build/bundle-runner.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { benchAdmin } from './bench-setup.js';
import { cgroupSupport } from './lambda-cgroup.js';
import { groupEvents } from './lambda-events.js';
import { startSandbox } from './lambda-sandbox.js';
import { summariseProfile, type CpuProfile } from './cpu-profile-summary.js';
import { startStoreStandIn } from './store-stand-in-process.js';

const group = (process.argv[2] ?? 'chat') as FunctionGroup;
const memoryMb = Number(process.argv[3] ?? 256);
const INVOCATIONS = Number(process.env.BENCH_PROFILE_INVOCATIONS ?? 400);
/** Invocations before the profiled ones: V8 optimizes a function after some hundreds of calls. */
const WARM_UP = Number(process.env.BENCH_PROFILE_WARM_UP ?? 20);
/** `whole` (the group's everyday request) or `large` (the chat group's 1 MB prompt). */
const KIND = process.env.BENCH_PROFILE_KIND ?? 'whole';
const support = cgroupSupport();
if (support.version === undefined) {
  console.log(`lambda-profile skipped: ${support.reason}.`);
  process.exit(0);
}

const work = await mkdtemp(path.join(os.tmpdir(), 'gateway-lambda-profile-'));
try {
  const outfile = path.join(work, 'dist', 'index.mjs');
  await build({ ...esbuildOptions(group, outfile), minify: false, minifySyntax: true });
  await writeExecWrapper(path.dirname(outfile));
  const store = await startStoreStandIn(0);
  const upstream = await startFakeUpstream(undefined, { keepAliveTimeoutMs: 600_000 });
  const adminKey = generateApiKey().key;
  process.env.GATEWAY_LOG_LEVEL ??= 'warn';
  const local = await startLocalGateway({ port: 0, dataDir: 'memory', adminKey, dynamodbEndpoint: store.url });
  const admin = benchAdmin(local.url, adminKey);
  await admin.addChannel('bench', upstream.baseUrl, 'bench-model');
  const { plain } = await admin.createKeys();
  await local.close();

  const profiles = path.join(work, 'profiles');
  await mkdir(profiles);
  const events = groupEvents(group, plain, adminKey, { quick: 'bench-model', paced: 'bench-model' });
  const sandbox = await startSandbox({
    support,
    memoryMb,
    outfile,
    environment: { ...functionEnvironment(group), DYNAMODB_ENDPOINT: store.url },
    cpuProfileDirectory: profiles,
  });
  for (let index = 0; index < WARM_UP; index += 1) await sandbox.invoke(events.whole);
  const before = sandbox.cgroup.cpuNanos();
  // V8 stamps samples with the monotonic clock in microseconds, the clock hrtime reads.
  const measuredFrom = Number(process.hrtime.bigint() / 1000n);
  const profiled = KIND === 'large' ? events.large : events.whole;
  if (!profiled) throw new Error(`BENCH_PROFILE_KIND=large: the ${group} group has no large request`);
  for (let index = 0; index < INVOCATIONS; index += 1) await sandbox.invoke(profiled);
  const cpuMs = (sandbox.cgroup.cpuNanos() - before) / 1e6;
  await sandbox.close();
  store.stop();
  await upstream.close();

  const [file] = await readdir(profiles);
  const profile = JSON.parse(await readFile(path.join(profiles, file!), 'utf8')) as CpuProfile;
  if (process.env.BENCH_PROFILE_KEEP) await copyFile(path.join(profiles, file!), process.env.BENCH_PROFILE_KEEP);
  console.log(
    `${group} at ${memoryMb} MB: ${(cpuMs / INVOCATIONS).toFixed(2)} ms of cgroup CPU per invocation over ${INVOCATIONS}`,
  );
  console.log(
    summariseProfile(profile, {
      fromMicros: measuredFrom,
      invocations: INVOCATIONS,
      top: Number(process.env.BENCH_PROFILE_TOP ?? 40),
    }),
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
process.exit(0);
