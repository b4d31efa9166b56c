import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeInProcess } from '../support/gateway-target.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * `${NAME}` placeholders are read from the environment of whoever applies a config file (the CLI,
 * the local runtime's GATEWAY_CONFIG), never from the gateway's: a document sent to the admin API
 * that still holds one is refused with the field it is in.
 */

const CLI = resolve('bin/gatewayctl.js');

let gateway: TestGateway;
let upstream: FakeUpstream;
let folder: string;

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  folder = await mkdtemp(join(tmpdir(), 'gateway-placeholders-'));
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await rm(folder, { recursive: true, force: true });
});

/** A config whose channel `id` serves model `id` from the fake upstream, with `apiKey` as written. */
const channelConfig = (id: string, apiKey: string) =>
  [
    'channels:',
    `  - id: ${id}`,
    '    type: openai',
    `    baseUrl: ${upstream.baseUrl}`,
    `    apiKey: ${apiKey}`,
    `    models: [${id}]`,
    '',
  ].join('\n');

/** The Authorization header the upstream got for one chat call to `model`. */
const authorizationSentFor = async (model: string): Promise<string | undefined> => {
  const { key } = await gateway.createAccountWithKey();
  const chat = await gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(chat.status).toBe(200);
  return (await upstream.receivedRequests()).at(-1)?.headers.authorization as string | undefined;
};

describe('POST /admin/v1/apply over HTTP', () => {
  // The server's own environment holds what the placeholders name: nothing of it may be used or shown.
  const serverSecret = 'server-own-secret-value-7f3a9c1d2e';
  const saved = process.env.AWS_SECRET_ACCESS_KEY;

  beforeEach(() => {
    process.env.AWS_SECRET_ACCESS_KEY = serverSecret;
    process.env.AWS_SECRET_ACCESS_KEY_FOR_TEST = serverSecret;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved;
    delete process.env.AWS_SECRET_ACCESS_KEY_FOR_TEST;
  });

  test('refuses ${AWS_SECRET_ACCESS_KEY} as an apiKey with a 400 naming the field, and applies nothing', async () => {
    const answer = await gateway.admin('POST', '/admin/v1/apply', {
      channels: [
        {
          id: 'leaky',
          type: 'openai',
          baseUrl: upstream.baseUrl,
          apiKey: '${AWS_SECRET_ACCESS_KEY}',
          models: ['leaky'],
        },
      ],
    });

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'channels[0].apiKey',
    });
    expect(answer.body.error.message).toContain('${AWS_SECRET_ACCESS_KEY}');
    expect(answer.text).not.toContain(serverSecret);
    expect((await gateway.admin('GET', '/admin/v1/channels/leaky')).status).toBe(404);
  });

  test.each([
    [
      'a channel key read from the server',
      {
        channels: [
          {
            id: 'c',
            type: 'openai',
            baseUrl: 'http://127.0.0.1:9/v1',
            apiKey: '${AWS_SECRET_ACCESS_KEY_FOR_TEST}',
            models: ['c'],
          },
        ],
      },
      'channels[0].apiKey',
    ],
    [
      'a part of a base URL',
      {
        channels: [
          { id: 'c', type: 'openai', baseUrl: 'http://${AWS_SECRET_ACCESS_KEY_FOR_TEST}.example/v1', models: ['c'] },
        ],
      },
      'channels[0].baseUrl',
    ],
    [
      'a model map entry',
      {
        channels: [
          { id: 'c', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['c'], modelMap: { c: '${HOME}' } },
        ],
      },
      'channels[0].modelMap.c',
    ],
    [
      'a field name',
      {
        channels: [
          { id: 'c', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['c'], modelMap: { '${HOME}': 'c' } },
        ],
      },
      'channels[0].modelMap.${HOME}',
    ],
    ['an account name', { accounts: [{ name: '${AWS_SECRET_ACCESS_KEY_FOR_TEST}' }] }, 'accounts[0].name'],
    ['a declared client key', { accounts: [{ name: 'p', keys: [{ key: '${TEAM_KEY}' }] }] }, 'accounts[0].keys[0].key'],
    ['a model owner', { models: [{ id: 'm', ownedBy: 'x ${AWS_SECRET_ACCESS_KEY_FOR_TEST} y' }] }, 'models[0].ownedBy'],
  ])('refuses a placeholder in %s, whatever the server’s environment holds', async (_where, document, param) => {
    const answer = await gateway.admin('POST', '/admin/v1/apply', document);

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_value', param });
    expect(answer.text).not.toContain(serverSecret);
  });
});

/** Runs the CLI as an operator would, in its own process with only the environment given. */
const gatewayctl = (
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? '', GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey, ...env },
        timeout: 30_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('gatewayctl apply', () => {
  test('resolves placeholders from its own environment, which the gateway never sees', async () => {
    const file = join(folder, 'cli.yaml');
    await writeFile(file, channelConfig('cli-channel', '${CLI_ONLY_UPSTREAM_KEY}'));
    expect(process.env.CLI_ONLY_UPSTREAM_KEY).toBeUndefined();

    const result = await gatewayctl(['apply', '-f', file], {
      CLI_ONLY_UPSTREAM_KEY: 'upstream-key-from-the-operator-41',
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await authorizationSentFor('cli-channel')).toBe('Bearer upstream-key-from-the-operator-41');
    // Made by another process, so the suite's own clean-up does not know it: on a shared gateway it
    // would keep serving after this file.
    expect((await gateway.admin('DELETE', '/admin/v1/channels/cli-channel')).status).toBe(200);
  });

  test('stops with the field named when a variable is not set in its environment, and sends nothing', async () => {
    const file = join(folder, 'unset.yaml');
    await writeFile(file, channelConfig('unset-channel', '${CLI_UNSET_VARIABLE}'));

    const result = await gatewayctl(['apply', '-f', file], {});

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('channels[0].apiKey: the environment variable CLI_UNSET_VARIABLE is not set');
    expect((await gateway.admin('GET', '/admin/v1/channels/unset-channel')).status).toBe(404);
  });
});

describeInProcess('it starts a gateway of its own with a config file')('GATEWAY_CONFIG at start', () => {
  test('resolves placeholders from the environment of the process that starts the gateway', async () => {
    const configPath = join(folder, 'start.yaml');
    await writeFile(configPath, channelConfig('start-channel', '${START_UPSTREAM_KEY}'));
    process.env.START_UPSTREAM_KEY = 'upstream-key-read-at-start-93';
    const started = await startTestGateway({ configPath });
    try {
      const { key } = await started.createAccountWithKey();
      const chat = await started.request('POST', '/v1/chat/completions', {
        key,
        body: { model: 'start-channel', messages: [{ role: 'user', content: 'hi' }] },
      });

      expect(chat.status).toBe(200);
      expect((await upstream.receivedRequests()).at(-1)?.headers.authorization).toBe(
        'Bearer upstream-key-read-at-start-93',
      );
    } finally {
      delete process.env.START_UPSTREAM_KEY;
      await started.close();
    }
  });
});
