import { randomBytes } from 'node:crypto';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { newKeyRecord } from '../../functions/shared/config/resource-records.js';
import { putKey } from '../../functions/shared/store/keys.js';
import { chargeWindow, windowStartOf } from '../../functions/shared/accounting/rate-limit-window.js';
import {
  USAGE_DELIVERY_VARIABLE,
  USAGE_RECORD_EVENT,
  usageDelivery,
} from '../../functions/shared/accounting/usage-delivery.js';
import { noteKeyUsed } from '../../functions/shared/store/keys.js';
import { runAsFunction } from '../../infra/local/function-scope.js';
import { resetSecretsManager } from '../../functions/shared/secrets/secrets-client.js';
import { ALERT_TOPIC_VARIABLE, resetAlertTopic } from '../../functions/shared/accounting/alert-topic.js';
import { forgetUpstreamKeys } from '../../functions/shared/secrets/upstream-secrets.js';
import type { AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { recordAwsCalls } from './aws-call-recorder.js';
import { captureLogLines, type LogLine } from './captured-log-lines.js';
import { CURSOR_SECRET_NAME } from '../infra/required-permissions.js';
import { CURSOR_SECRET_ARN_VARIABLE } from '../../functions/shared/secrets/cursor-secret.js';
import { secretsManager } from '../../functions/shared/secrets/secrets-client.js';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { startFakeSecretsManager } from './fake-secrets-manager.js';
import { startFakeSns, type FakeSns } from './fake-sns.js';
import { bedrockRoutes } from './fake-upstream/bedrock-wire.js';
import { startFakeUpstream } from './fake-upstream/fake-upstream.js';
import { openAiEmbeddingsRoutes } from './fake-upstream/openai-embeddings-wire.js';
import { openAiImagesRoutes } from './fake-upstream/openai-images-wire.js';
import { openAiResponsesRoutes } from './fake-upstream/openai-responses-wire.js';
import { openAiSpeechRoutes } from './fake-upstream/openai-speech-wire.js';
import { openAiRoutes } from './fake-upstream/openai-wire.js';
import { deliverUsageLines } from './usage-writer-delivery.js';
import { startTestGateway, type HttpResult, type TestGateway } from './test-gateway.js';

/**
 * The gateway as deployed, driven through every path that reaches AWS: every endpoint for every kind
 * of key (no limits, rate limits, a quota account, a spent quota), streamed and not, every admin
 * operation, upstream keys in Secrets Manager and Bedrock channels by foundation model and by
 * inference profile. Every request runs as the first one of a fresh function (no cached key, account,
 * catalogue or upstream key), since any of them may be on AWS. Usage records are delivered as the
 * stack deploys them by default (`-c usageDelivery=log`): the relaying functions log them, and the
 * usage writer stores them before they are read. Returns every AWS call by the function that made it
 * (the writer's under `USAGE_WRITER`, usage-writer-delivery.ts), and the usage lines the functions wrote.
 */

export const SCENARIO_SECRET_PREFIX = 'model-gateway/ModelGateway-scenario/channels';
/** The stack's budget-alert topic, as the scenario's functions are told it. */
export const SCENARIO_ALERT_TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:ModelGateway-scenario-budget-alerts';

const OPENAI_MODEL = 'scenario-gpt';
const FOUNDATION_MODEL = 'anthropic.claude-scenario-v1:0';
const INFERENCE_PROFILE = `us.${FOUNDATION_MODEL}`;

/** Environment the scenario sets for the gateway, restored afterwards. */
const scenarioEnvironment: Readonly<Record<string, string>> = {
  UPSTREAM_SECRET_PREFIX: SCENARIO_SECRET_PREFIX,
  // No cache in any function: every request reads what a cold function would.
  GATEWAY_CACHE_TTL_MS: '0',
  // Bedrock calls are signed; the fake does not check signatures, the SDK still needs credentials.
  AWS_ACCESS_KEY_ID: 'AKIDSCENARIO',
  AWS_SECRET_ACCESS_KEY: 'scenario-secret',
  AWS_REGION: 'us-east-1',
  [ALERT_TOPIC_VARIABLE]: SCENARIO_ALERT_TOPIC_ARN,
  [USAGE_DELIVERY_VARIABLE]: 'log',
};

export interface ScenarioResult {
  /** Every AWS call, by endpoint group or by `USAGE_WRITER`. */
  readonly callsByFunction: ReadonlyMap<string, readonly AwsCall[]>;
  /** The usage records' log lines the relaying functions wrote. */
  readonly usageLines: readonly LogLine[];
}

const expectStatus = (result: HttpResult, status: number, what: string): HttpResult => {
  if (result.status !== status)
    throw new Error(`${what}: expected ${status}, got ${result.status}: ${result.text.slice(0, 300)}`);
  return result;
};

/** One request of each client endpoint, and the model listing in its three formats. */
const clientRequests = (
  model: string,
): readonly [what: string, method: string, path: string, body?: unknown, headers?: Record<string, string>][] => [
  ['chat', 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }],
  [
    'chat stream',
    'POST',
    '/v1/chat/completions',
    { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] },
  ],
  ['messages', 'POST', '/v1/messages', { model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }],
  [
    'messages stream',
    'POST',
    '/v1/messages',
    { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  ],
  ['count tokens', 'POST', '/v1/messages/count_tokens', { model, messages: [{ role: 'user', content: 'hi' }] }],
  ['responses', 'POST', '/v1/responses', { model, input: 'hi' }],
  ['responses stream', 'POST', '/v1/responses', { model, input: 'hi', stream: true }],
  [
    'gemini',
    'POST',
    `/v1beta/models/${model}:generateContent`,
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  ],
  [
    'gemini stream',
    'POST',
    `/v1/models/${model}:streamGenerateContent?alt=sse`,
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  ],
  ['embeddings', 'POST', '/v1/embeddings', { model, input: 'hi' }],
  ['images', 'POST', '/v1/images/generations', { model, prompt: 'a red square' }],
  ['speech', 'POST', '/v1/audio/speech', { model, input: 'hello', voice: 'alloy', response_format: 'wav' }],
  ['models', 'GET', '/v1/models'],
  ['models, Anthropic format', 'GET', '/v1/models', undefined, { 'anthropic-version': '2023-06-01' }],
  ['models, Google format', 'GET', '/v1beta/models'],
];

/**
 * Stored Responses: kept, continued, read, listed and deleted, and one large enough to be split over
 * several items (random text, which compression cannot shrink below the size of one).
 */
const driveStoredResponses = async (gateway: TestGateway) => {
  const { key } = await gateway.createAccountWithKey({ name: 'stored responses' });
  const send = (method: string, path: string, body?: unknown) => gateway.request(method, path, { key, body });
  const large = randomBytes(600_000).toString('base64');
  for (const input of ['hi', large]) {
    const first = expectStatus(await send('POST', '/v1/responses', { model: OPENAI_MODEL, input }), 200, 'kept');
    const id = first.body.id as string;
    const next = { model: OPENAI_MODEL, input: 'and?', previous_response_id: id };
    expectStatus(await send('POST', '/v1/responses', next), 200, 'chained');
    expectStatus(await send('GET', `/v1/responses/${id}`), 200, 'retrieved');
    expectStatus(await send('GET', `/v1/responses/${id}/input_items`), 200, 'input items');
    expectStatus(await send('DELETE', `/v1/responses/${id}`), 200, 'deleted');
  }
};

const bedrockRequests = (model: string) =>
  clientRequests(model).filter(([what]) => /^(chat|messages|responses|gemini)/.test(what));

export const runAwsOperationScenario = async (): Promise<ScenarioResult> => {
  const saved = Object.fromEntries(
    [...Object.keys(scenarioEnvironment), 'SECRETS_MANAGER_ENDPOINT', 'SNS_ENDPOINT', CURSOR_SECRET_ARN_VARIABLE].map(
      (name) => [name, process.env[name]],
    ),
  );
  const secrets = await startFakeSecretsManager();
  const sns = await startFakeSns([SCENARIO_ALERT_TOPIC_ARN]);
  const upstream = await startFakeUpstream({
    ...openAiRoutes,
    ...openAiEmbeddingsRoutes,
    ...openAiImagesRoutes,
    ...openAiResponsesRoutes,
    ...openAiSpeechRoutes,
  });
  const bedrock = await startFakeUpstream({ ...bedrockRoutes(FOUNDATION_MODEL), ...bedrockRoutes(INFERENCE_PROFILE) });
  Object.assign(process.env, scenarioEnvironment, {
    SECRETS_MANAGER_ENDPOINT: secrets.endpoint,
    SNS_ENDPOINT: sns.endpoint,
  });
  resetSecretsManager();
  resetAlertTopic();
  forgetUpstreamKeys();
  // Usage lines are written whatever the log level: kept here, out of the test's output.
  const logLines = captureLogLines(process.env.GATEWAY_LOG_LEVEL ?? 'silent');
  const usageLines = () => logLines.lines.filter((line) => line.event === USAGE_RECORD_EVENT);
  // The secret the stack creates to sign page cursors, made before recording: the stack makes it.
  const cursorSecret = await (
    await secretsManager()
  ).send(new CreateSecretCommand({ Name: CURSOR_SECRET_NAME, SecretString: 'scenario-cursor-key' }));
  process.env[CURSOR_SECRET_ARN_VARIABLE] = cursorSecret.ARN;
  let gateway: TestGateway | undefined;
  const recorder = recordAwsCalls();
  try {
    // Read once per process: a read before this one would leave the functions storing their records.
    if (usageDelivery() !== 'log') throw new Error(`${USAGE_DELIVERY_VARIABLE} was read before the scenario set it`);
    gateway = await startTestGateway();
    await driveAdmin(gateway, upstream.baseUrl, bedrock.origin);
    const used = await driveClients(gateway);
    // A few seconds after the requests on AWS: the writer stores what the subscriptions deliver.
    await deliverUsageLines(usageLines());
    await driveUsageReads(gateway, used);
    await driveStoredResponses(gateway);
    await driveBudgetAlerts(gateway, sns);
    await driveFullShardedWindow();
    await driveKeyUse();
    await driveConsole(gateway);
    await driveAccountRemoval(gateway);
    return { callsByFunction: recorder.callsByGroup(), usageLines: usageLines() };
  } finally {
    // Closing waits for invocations still running (usage written after the response): record those too.
    await gateway?.close();
    recorder.stop();
    logLines.restore();
    await Promise.all([upstream.close(), bedrock.close(), secrets.close(), sns.close()]);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetSecretsManager();
    resetAlertTopic();
    forgetUpstreamKeys();
  }
};

/**
 * A budget alert from each function that settles spending: a key whose daily budget alerts at a
 * billionth of its limit sends one request of each relaying group, and the alert it crosses reaches
 * the topic (a marker written in the spend table, then SNS Publish).
 */
const driveBudgetAlerts = async (gateway: TestGateway, sns: FakeSns): Promise<void> => {
  const requests = clientRequests(OPENAI_MODEL).filter(([what]) =>
    ['chat', 'embeddings', 'images', 'speech'].includes(what),
  );
  for (const [what, method, path, body] of requests) {
    const { key, keyId } = await gateway.createAccountWithKey(
      { name: `alerting ${what}` },
      { budget: { limitUsd: 1, period: 'day', alertAt: [1e-9] } },
    );
    forgetUpstreamKeys();
    expectStatus(await gateway.request(method, path, { key, body }), 200, `${what} under an alerting budget`);
    // Settled after the response: the alert follows it.
    await sns.whenPublished(({ message }) => (JSON.parse(message) as { id?: string }).id === keyId);
  }
};

/** Every admin route, with the key writes that reach Secrets Manager: create, rotate, remove, restore. */
const driveAdmin = async (gateway: TestGateway, openAiBaseUrl: string, bedrockOrigin: string): Promise<void> => {
  const admin = async (method: string, path: string, status: number, body?: unknown) =>
    expectStatus(await gateway.admin(method, path, body), status, `${method} ${path}`);
  const channel = { type: 'openai', baseUrl: openAiBaseUrl, models: [OPENAI_MODEL] };

  await admin('PUT', '/admin/v1/channels/openai', 200, { ...channel, apiKey: 'sk-upstream-scenario-first-000001' });
  await admin('PUT', '/admin/v1/channels/openai', 200, { ...channel, apiKey: 'sk-upstream-scenario-rotated-0002' });
  await admin('PUT', '/admin/v1/channels/openai', 200, { ...channel, apiKey: null });
  // The name is still scheduled for deletion: the secret is restored, then given the new value.
  await admin('PUT', '/admin/v1/channels/openai', 200, { ...channel, apiKey: 'sk-upstream-scenario-restored-003' });
  await admin('PUT', '/admin/v1/channels/bedrock-model', 200, {
    type: 'bedrock',
    baseUrl: bedrockOrigin,
    models: ['scenario-claude'],
    modelMap: { 'scenario-claude': FOUNDATION_MODEL },
  });
  await admin('PUT', '/admin/v1/channels/bedrock-profile', 200, {
    type: 'bedrock',
    baseUrl: bedrockOrigin,
    models: ['scenario-claude-profile'],
    modelMap: { 'scenario-claude-profile': INFERENCE_PROFILE },
  });
  await admin('PUT', '/admin/v1/channels/doomed', 200, {
    ...channel,
    models: ['doomed-model'],
    apiKey: 'sk-upstream-scenario-doomed-0004',
  });
  await admin('GET', '/admin/v1/channels', 200);
  await admin('GET', '/admin/v1/channels/openai', 200);
  await admin('DELETE', '/admin/v1/channels/doomed', 200);

  for (const model of [OPENAI_MODEL, 'scenario-claude', 'scenario-claude-profile']) {
    await admin('PUT', `/admin/v1/models/${model}`, 200, { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
  }
  await admin('PUT', '/admin/v1/models/doomed-model', 200, { aliases: ['doomed-alias'] });
  await admin('GET', '/admin/v1/models', 200);
  await admin('GET', '/admin/v1/models/doomed-model', 200);
  await admin('DELETE', '/admin/v1/models/doomed-model', 200);

  const account = (await admin('POST', '/admin/v1/accounts', 201, { name: 'scenario-admin' })).body as { id: string };
  await admin('GET', '/admin/v1/accounts', 200);
  await admin('GET', `/admin/v1/accounts/${account.id}`, 200);
  await admin('PATCH', `/admin/v1/accounts/${account.id}`, 200, { rateLimit: { rpm: 100 } });
  const key = (await admin('POST', '/admin/v1/keys', 201, { accountId: account.id })).body as { id: string };
  await admin('GET', `/admin/v1/keys?accountId=${account.id}`, 200);
  await admin('GET', `/admin/v1/keys/${key.id}`, 200);
  await admin('PATCH', `/admin/v1/keys/${key.id}`, 200, { name: 'renamed' });
  await admin('DELETE', `/admin/v1/keys/${key.id}`, 200);
  await admin('POST', '/admin/v1/apply', 200, {
    channels: [
      {
        id: 'applied',
        type: 'openai',
        baseUrl: openAiBaseUrl,
        models: ['applied-model'],
        apiKey: 'sk-upstream-scenario-applied-0005',
      },
    ],
    models: [{ id: 'applied-model', pricing: { inputPerMTok: 1, outputPerMTok: 1 } }],
    accounts: [{ id: 'acct_scenario_applied', name: 'applied', keys: [{ key: `sk-${'a'.repeat(48)}` }] }],
  });
  // The audit trail: newest first by month, by action, by actor.
  for (const query of ['?limit=2', '?action=channel.put', `?actorId=${key.id}`])
    await admin('GET', `/admin/v1/audit${query}`, 200);
};

/** Every client endpoint for every kind of key; returns the key whose usage `driveUsageReads` reads. */
const driveClients = async (gateway: TestGateway): Promise<{ accountId: string; keyId: string }> => {
  const kinds: readonly [kind: string, account: Record<string, unknown>, key: Record<string, unknown>][] = [
    ['no limits', {}, {}],
    ['rate limits', { rateLimit: { rpm: 1000, tpm: 1_000_000 } }, { rateLimit: { rpm: 1000, tpm: 1_000_000 } }],
    ['quota', { quota: { limit: 100 } }, {}],
  ];
  const keys: { kind: string; key: string; keyId: string; accountId: string }[] = [];
  for (const [kind, account, key] of kinds) {
    const created = await gateway.createAccountWithKey({ name: kind, ...account }, key);
    keys.push({ kind, key: created.key, keyId: created.keyId, accountId: created.account.id });
  }
  // A key a member created: its principal reads the account and the member (a budget each) at once.
  const budgeted = await gateway.createAccountWithKey({
    name: 'member budgets',
    budget: { limitUsd: 100, period: 'month' },
  });
  const memberEmail = 'budgeted@scenario.example';
  expectStatus(
    await gateway.admin('PUT', `/admin/v1/members/${memberEmail}`, {
      accountId: budgeted.account.id,
      role: 'member',
      budget: { limitUsd: 100, period: 'day' },
    }),
    201,
    'a member with a budget',
  );
  const memberKey = generateApiKey();
  const memberRecord = await putKey({ ...newKeyRecord(memberKey.key, budgeted.account.id, {}), owner: memberEmail });
  keys.push({ kind: "a member's key", key: memberKey.key, keyId: memberRecord.id, accountId: budgeted.account.id });
  const send = async (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    forgetUpstreamKeys();
    return gateway.request(method, path, { key, body, headers });
  };

  for (const { kind, key } of keys) {
    for (const [what, method, path, body, headers] of clientRequests(OPENAI_MODEL)) {
      expectStatus(await send(key, method, path, body, headers), 200, `${what} with ${kind}`);
    }
    for (const model of ['scenario-claude', 'scenario-claude-profile']) {
      for (const [what, method, path, body] of bedrockRequests(model)) {
        expectStatus(await send(key, method, path, body), 200, `${what} on ${model} with ${kind}`);
      }
    }
  }

  // Refusals read what admission reads and record what a refused request records, on every endpoint.
  // Counting tokens is free and unmetered: it is neither limited nor recorded.
  const metered = clientRequests(OPENAI_MODEL).filter(([what, method]) => method === 'POST' && what !== 'count tokens');
  for (const [what, method, path, body] of metered) {
    const spent = await gateway.createAccountWithKey({ name: 'spent', quota: { limit: 0 } });
    expectStatus(await send(spent.key, method, path, body), 429, `${what} on a spent quota`);
    // A busy account's windows and spend are split over shards: a full slice reads every shard at once.
    const sharded = await gateway.createAccountWithKey({ name: 'sharded', rateLimit: { rpm: 100_000, tpm: 20 } });
    // Endpoints that reserve tokens are refused by the sharded token window; the others count after.
    await send(sharded.key, method, path, body);
    const shardedSpend = await gateway.createAccountWithKey({
      name: 'sharded spend',
      rateLimit: { rpm: 100_000 },
      quota: { limit: 1e-9 },
    });
    expectStatus(await send(shardedSpend.key, method, path, body), 429, `${what} on a sharded, spent quota`);
    const limited = await gateway.createAccountWithKey({ name: 'one a minute', rateLimit: { rpm: 1 } });
    // The first request fills the window; if the minute turns before the next, one more fills the new one.
    let refused = false;
    for (let attempt = 0; attempt < 3 && !refused; attempt += 1)
      refused = (await send(limited.key, method, path, body)).status === 429;
    if (!refused) throw new Error(`${what}: a key allowed one request a minute was never refused`);
  }
  expectStatus(await send(`sk-${'0'.repeat(48)}`, 'GET', '/v1/models'), 401, 'unknown key');

  // The fallback function: health, unknown paths and wrong methods.
  expectStatus(await gateway.request('GET', '/health'), 200, 'health');
  expectStatus(await gateway.request('GET', '/v2/nothing'), 404, 'unknown path');
  expectStatus(await gateway.request('DELETE', '/v1/chat/completions'), 405, 'wrong method');
  return { accountId: keys[0]!.accountId, keyId: keys[0]!.keyId };
};

/** The usage the client requests left, read every way the admin API offers, a page at a time. */
const driveUsageReads = async (
  gateway: TestGateway,
  { accountId, keyId }: { accountId: string; keyId: string },
): Promise<void> => {
  const usageQueries = [
    '',
    `?accountId=${accountId}`,
    `?keyId=${keyId}`,
    `?accountId=${accountId}&keyId=${keyId}`,
    `?accountId=${accountId}&from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z`,
  ];
  for (const query of usageQueries) {
    const page = expectStatus(
      await gateway.admin('GET', `/admin/v1/usage${query}${query ? '&' : '?'}limit=2`),
      200,
      `usage ${query}`,
    );
    const cursor = (page.body as { nextCursor?: string }).nextCursor;
    if (cursor) {
      expectStatus(
        await gateway.admin(
          'GET',
          `/admin/v1/usage${query}${query ? '&' : '?'}limit=2&cursor=${encodeURIComponent(cursor)}`,
        ),
        200,
        `usage ${query}, next page`,
      );
    }
  }
};

/** The console's API as a member and as an operator, and the admin routes that manage members. */
const driveConsole = async (gateway: TestGateway): Promise<void> => {
  const admin = async (method: string, path: string, status: number, body?: unknown) =>
    expectStatus(await gateway.admin(method, path, body), status, `${method} ${path}`);
  const account = (await admin('POST', '/admin/v1/accounts', 201, { name: 'scenario-console' })).body as { id: string };
  const email = 'member@scenario.example';
  const password = 'a-long-scenario-password';
  await admin('PUT', `/admin/v1/members/${email}`, 201, { accountId: account.id, role: 'account-admin', password });
  await admin('GET', '/admin/v1/members', 200);

  const send = async (method: string, path: string, status: number, options: { key?: string; body?: unknown } = {}) =>
    expectStatus(await gateway.request(method, path, options), status, `console ${method} ${path}`);
  await send('GET', '/console/', 200);
  await send('GET', '/console/api/config', 200);
  const operator = (await send('POST', '/console/api/session', 201, { body: { key: gateway.adminKey } })).body as {
    token: string;
  };
  await send('GET', '/console/api/me', 200, { key: operator.token });
  for (const query of ['', '?action=key.create', '?actorId=member@scenario.example'])
    await send('GET', `/console/api/audit${query}`, 200, { key: operator.token });
  const member = (await send('POST', '/console/api/session', 201, { body: { email, password } })).body as {
    token: string;
  };
  await send('GET', '/console/api/me', 200, { key: member.token });
  const created = (await send('POST', '/console/api/keys', 201, { key: member.token, body: { name: 'scenario' } }))
    .body as { id: string };
  await send('GET', '/console/api/keys', 200, { key: member.token });
  await send('PATCH', `/console/api/keys/${created.id}`, 200, { key: member.token, body: { name: 'renamed' } });
  await send('DELETE', `/console/api/keys/${created.id}`, 200, { key: member.token });
  await send('GET', '/console/api/models', 200, { key: member.token });
  await send('GET', '/console/api/usage', 200, { key: member.token });
  // The member is an account admin: they manage the account's members, whose removal revokes their keys.
  await send('PUT', '/console/api/members/colleague@scenario.example', 201, {
    key: member.token,
    body: { role: 'member' },
  });
  await send('GET', '/console/api/members', 200, { key: member.token });
  // Budgets: the person's own and the account's keys and members, and an account admin setting them.
  const budget = { budget: { limitUsd: 5, period: 'week' } };
  await send('PUT', '/console/api/budgets/member/colleague@scenario.example', 200, { key: member.token, body: budget });
  const budgeted = (await send('POST', '/console/api/keys', 201, { key: member.token, body: { name: 'budgeted' } }))
    .body as { id: string };
  await send('PUT', `/console/api/budgets/key/${budgeted.id}`, 200, { key: member.token, body: budget });
  await send('GET', '/console/api/budgets', 200, { key: member.token });
  await send('DELETE', '/console/api/members/colleague@scenario.example', 200, { key: member.token });
  await send('GET', '/console/api/overview', 200, { key: member.token });
  await send('GET', '/console/api/requests?format=csv', 200, { key: member.token });
  // An operator's view of every account: the day index, and the accounts' names.
  await send('GET', '/console/api/overview', 200, { key: operator.token });
  await send('GET', '/console/api/requests', 200, { key: operator.token });
  // "Test this channel": its upstream key from Secrets Manager.
  await send('GET', '/console/api/channels/health', 200, { key: operator.token });
  await send('POST', '/console/api/channels/openai/test', 200, { key: operator.token });
  await send('DELETE', '/console/api/session', 200, { key: member.token });
  await admin('DELETE', `/admin/v1/members/${email}`, 200);
};

/** Deleting an account takes its keys with it; the metrics summary reads no store. */
const driveAccountRemoval = async (gateway: TestGateway): Promise<void> => {
  const admin = async (method: string, path: string, status: number, body?: unknown) =>
    expectStatus(await gateway.admin(method, path, body), status, `${method} ${path}`);
  const account = (await admin('POST', '/admin/v1/accounts', 201, { name: 'scenario-doomed' })).body as { id: string };
  await admin('POST', '/admin/v1/keys', 201, { accountId: account.id });
  await admin('GET', '/admin/v1/metrics', 200);
  await admin('DELETE', `/admin/v1/accounts/${account.id}`, 200);
};

/**
 * A charge that no shard of a sharded window can take reads every shard at once (BatchGetItem). That
 * takes thousands of requests to reach over HTTP, so each relaying function's scope runs the path
 * itself: a request window of 100,000 a minute (17 shards) asked for all of it.
 */
const driveFullShardedWindow = async (): Promise<void> => {
  for (const group of ['chat', 'embeddings', 'images', 'audio'] as const) {
    const result = await runAsFunction(group, () =>
      chargeWindow({
        dimension: 'requests',
        scope: 'account',
        ownerId: `scenario-${group}`,
        limit: 100_000,
        amount: 100_000,
        windowStart: windowStartOf(Date.now()),
      }),
    );
    if (result.granted) throw new Error(`${group}: a charge larger than any shard's slice was granted`);
  }
};

/**
 * A key's first request in a minute records when it was used (key-use.ts). Whether a group's request
 * is its key's first in the minute is up to the order of the scenario, so each group that
 * authenticates keys writes one itself.
 */
const driveKeyUse = async (): Promise<void> => {
  for (const group of ['chat', 'embeddings', 'images', 'audio', 'models'] as const) {
    await runAsFunction(group, () => noteKeyUsed(`scenario-${group}-key-hash`, new Date().toISOString()));
  }
};
