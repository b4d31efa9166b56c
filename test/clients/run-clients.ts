/**
 * `npm run test:clients`: the real agent CLIs and frameworks, installed in `.clients/` (apart from the
 * project's own dependencies), each driven non-interactively through the local gateway onto every
 * channel type, native and translated, with fake upstreams. Skips, saying so, when the npm registry
 * cannot be reached. Exits non-zero when a client that ran failed.
 */
// First: the gateway's own JSON lines would bury the results (GATEWAY_LOG_LEVEL turns them back on).
import '../support/quiet-logs.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { anthropicRoutes } from '../support/fake-upstream/anthropic-wire.js';
import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { geminiRoutes } from '../support/fake-upstream/gemini-wire.js';
import { openAiResponsesRoutes } from '../support/fake-upstream/openai-responses-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { gatewayClient } from '../support/gateway-client.js';
import {
  claudeCodeRun,
  codexRun,
  frameworkRun,
  geminiCliRun,
  runClient,
  type ClientContext,
  type ClientRun,
} from './client-drivers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const clientsDir = join(root, '.clients');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The clients, at the versions these runs were written against. */
const PACKAGES = [
  '@openai/codex@0.169.0',
  '@google/gemini-cli@0.61.0',
  '@anthropic-ai/claude-code@2.1.328',
  'ai@7',
  '@ai-sdk/openai@4',
  '@langchain/openai@1',
  '@openai/agents@0.20',
  'openai@6',
  'zod@4',
];

const registryReachable = (): boolean => {
  try {
    execFileSync(npm, ['view', '@openai/codex', 'version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
};

const install = () => {
  if (!existsSync(join(clientsDir, 'package.json'))) {
    execFileSync('mkdir', ['-p', clientsDir]);
    writeFileSync(join(clientsDir, 'package.json'), JSON.stringify({ name: 'gateway-clients', private: true }));
  }
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', ...PACKAGES], {
    cwd: clientsDir,
    stdio: 'inherit',
    timeout: 900_000,
  });
  const frameworks = join(root, 'test', 'clients', 'frameworks');
  for (const file of readdirSync(frameworks)) copyFileSync(join(frameworks, file), join(clientsDir, file));
};

const main = async () => {
  if (!registryReachable()) {
    console.log('test:clients skipped: the npm registry cannot be reached, so the clients cannot be installed.');
    return;
  }
  install();

  const openAi = await startFakeUpstream({ ...openAiRoutes, ...openAiResponsesRoutes });
  const anthropic = await startFakeUpstream(anthropicRoutes);
  const gemini = await startFakeUpstream(geminiRoutes('gemini-upstream'));
  const adminKey = generateApiKey().key;
  const local = await startLocalGateway({ port: 0, dataDir: 'memory', adminKey });
  const gateway = gatewayClient(local.url, adminKey, () => local.close());
  const models = { openai: 'client-openai', anthropic: 'client-anthropic', gemini: 'client-gemini' } as const;
  // Gemini CLI also asks for its router and utility models by their Google names.
  const geminiUtilityModels = ['gemini-2.5-flash-lite', 'gemini-2.5-flash', 'gemini-3-flash-preview', 'gemini-2.5-pro'];
  await gateway.admin('PUT', '/admin/v1/channels/clients-openai', {
    type: 'openai',
    baseUrl: openAi.baseUrl,
    apiKey: 'sk-fake-upstream',
    models: [models.openai],
  });
  await gateway.admin('PUT', '/admin/v1/channels/clients-anthropic', {
    type: 'anthropic',
    baseUrl: anthropic.origin,
    apiKey: 'sk-ant-fake-upstream',
    models: [models.anthropic],
  });
  await gateway.admin('PUT', '/admin/v1/channels/clients-gemini', {
    type: 'gemini',
    baseUrl: gemini.origin,
    apiKey: 'AIza-fake-upstream',
    models: [models.gemini, ...geminiUtilityModels],
    modelMap: Object.fromEntries([models.gemini, ...geminiUtilityModels].map((model) => [model, 'gemini-upstream'])),
  });
  const { key, account } = await gateway.createAccountWithKey();

  // Each client runs with a home of its own (its settings and caches), removed at the end.
  const homes: string[] = [];
  const context = (): ClientContext => {
    const home = mkdtempSync(join(tmpdir(), 'gateway-client-'));
    homes.push(home);
    return { clientsDir, gateway: local.url, key, home, node: process.execPath };
  };
  const types = ['openai', 'anthropic', 'gemini'] as const;
  const only = process.env.CLIENTS?.split(',');
  const runs: ClientRun[] = [
    ...types.map((type) => codexRun(context(), models[type])),
    ...types.map((type) => geminiCliRun(context(), models[type])),
    ...types.map((type) => claudeCodeRun(context(), models[type])),
    ...['ai-sdk', 'openai-agents', 'langchain'].flatMap((framework) =>
      types.map((type) => frameworkRun(context(), framework, models[type])),
    ),
  ];

  const results: { run: ClientRun; passed: boolean; detail: string }[] = [];
  // CLIENTS=codex,gemini-cli runs only those.
  for (const run of runs.filter((candidate) => !only || only.includes(candidate.client))) {
    const before = (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data.length;
    const result = await runClient(run, 180_000);
    const after = (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data.length;
    const passed = result.code === 0 && after > before;
    results.push({
      run,
      passed,
      detail: passed ? `${after - before} request(s) recorded` : result.output.slice(-2000),
    });
    console.log(`${passed ? 'PASS' : 'FAIL'} ${run.client} on ${run.model}`);
  }

  await gateway.close();
  await Promise.all([openAi.close(), anthropic.close(), gemini.close()]);
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  const failed = results.filter((result) => !result.passed);
  for (const { run, detail } of failed) console.log(`\n--- ${run.client} on ${run.model} ---\n${detail}`);
  console.log(`\n${results.length - failed.length} of ${results.length} client runs passed.`);
  process.exitCode = failed.length ? 1 : 0;
};

await main();
