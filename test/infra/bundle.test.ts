import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { App, CfnElement } from 'aws-cdk-lib';
import type { FunctionGroup } from '../../functions/shared/routes.js';
import {
  functionEnvironment,
  invokeBundle,
  lambdaLikeEnvironment,
  type InvocationResult,
} from '../../infra/build/bundle-runner.js';
import {
  EXEC_WRAPPER_FILE,
  EXEC_WRAPPER_ON_LAMBDA,
  execWrapperScript,
  V8_TIERING_FLAGS,
  writeExecWrapper,
} from '../../infra/build/exec-wrapper.js';
import { invokeUnderRuntimeClient, startUnderRuntimeClient } from '../../infra/build/runtime-client-runner.js';
import { nativeClientHooks, runtimeInterfaceClientSync } from '../../infra/build/runtime-interface-client.js';
import { allGroups, bundleAll, type BundleResult } from '../../infra/build/bundle.js';
import { DYNAMIC_REQUIRE_SHIM } from '../../infra/build/builtins-from-process.js';
import { bundleSizeLimitBytes, chunkDirectory, eventStreamGroups } from '../../infra/build/esbuild-options.js';
import { bedrockRoutes } from '../support/fake-upstream/bedrock-wire.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager.js';
import { proxyEvent } from '../support/proxy-event.js';
import { topLevelFunctions } from '../support/top-level-functions.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';
import { synthesizeGatewayStack } from './synthesize.js';

/**
 * AWS's runtime interface client is fetched from the npm registry on first use. Without a registry a
 * developer's run skips the cases that need it, and says so; CI has the registry and fails instead.
 */
const runtimeClientMissing = (() => {
  try {
    runtimeInterfaceClientSync();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();
if (runtimeClientMissing && process.env.CI)
  throw new Error(`aws-lambda-ric could not be fetched: ${runtimeClientMissing}`);
if (runtimeClientMissing) console.warn(`skipping the runtime interface client cases: ${runtimeClientMissing}`);
const itUnderRuntimeClient = runtimeClientMissing ? it.skip : it;

let outputDirectory: string;
/** `allCode` is every code file of the bundle, the entry and its chunks (its exec wrapper is beside them). */
const bundles = new Map<
  FunctionGroup,
  { readonly result: BundleResult; readonly allCode: string; readonly files: string[] }
>();

const bundleOf = (group: FunctionGroup) => bundles.get(group)!;
/**
 * The files whose code is in a bundle (not only read, then shaken out), relative to the repository:
 * in any of its files, or with `atInit` only in those a cold start loads.
 */
const inputsOf = (group: FunctionGroup, atInit = false) =>
  Object.entries(bundleOf(group).result.metafile.outputs)
    .filter(([output]) => !atInit || bundleOf(group).result.atInit.includes(output))
    .map(([, output]) => output)
    .flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );

beforeAll(async () => {
  outputDirectory = await mkdtemp(path.join(os.tmpdir(), 'gateway-bundle-'));
  for (const result of await bundleAll(allGroups, outputDirectory)) {
    const directory = path.dirname(result.outfile);
    const files = (await readdir(directory, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
      .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
      .sort();
    const allCode = (await Promise.all(files.map((file) => readFile(path.join(directory, file), 'utf8')))).join('\n');
    bundles.set(result.group, { result, allCode, files });
  }
}, 60_000);

afterAll(async () => {
  await rm(outputDirectory, { recursive: true, force: true });
});

describe('the size of each function bundle', () => {
  it.each(allGroups)('%s fits the DESIGN budget of 250 KB, AWS SDK clients included', (group) => {
    const { result } = bundleOf(group);
    expect(result.bytes).toBeLessThanOrEqual(bundleSizeLimitBytes);
    expect(result.withinBudget).toBe(true);
  });

  it('holds every group to 250 KB (DESIGN §6), so that raising it is a visible change', () => {
    expect(bundleSizeLimitBytes).toBe(250 * 1024);
  });
});

describe.each(allGroups)('the %s bundle', (group) => {
  it('is an ESM module, whose CommonJS dependencies need no require of their own', () => {
    const { result, allCode } = bundleOf(group);
    expect(path.basename(result.outfile)).toBe('index.mjs');
    // Neither esbuild's stand-in for a require it could not resolve, nor a createRequire to define one.
    expect(allCode.includes(DYNAMIC_REQUIRE_SHIM)).toBe(false);
    expect(allCode.includes('createRequire')).toBe(false);
  });

  it('carries its AWS SDK clients instead of relying on the SDK in the runtime', () => {
    expect(/from\s*["']@aws-sdk\//.test(bundleOf(group).allCode)).toBe(false);
    expect(inputsOf(group).some((input) => input.includes('node_modules/@aws-sdk/client-dynamodb/'))).toBe(true);
  });

  it('leaves out what the module replacements stand in for', () => {
    const replaced =
      /node_modules\/(@aws-sdk\/(credential-provider-|token-providers|nested-clients|endpoint-cache|eventstream-handler-node)|mnemonist)/;
    expect(inputsOf(group).filter((input) => replaced.test(input))).toEqual([]);
    // Booleans, not matchers on the code: a failure should not print a few hundred KB of it.
    expect(bundleOf(group).allCode.includes('credential_process')).toBe(false);
    expect(/from\s*"node:http2"/.test(bundleOf(group).allCode)).toBe(false);
    // zod's small build only: no classic schema methods, no JSON Schema output.
    const zodLeftOut = /node_modules\/zod\/v4\/(classic\/|core\/(json-schema-processors|to-json-schema)\.js$)/;
    expect(inputsOf(group).filter((input) => zodLeftOut.test(input))).toEqual([]);
  });

  it('has no code path that reads what the replacements left out', () => {
    // Endpoint discovery would read the cache; a request event stream would call the payload
    // handler, and only the bidirectional command sends one; the HTTP/2 handler is never created.
    const readers = [
      '@aws-sdk/middleware-endpoint-discovery/dist-es/endpointDiscoveryMiddleware.js',
      '@aws-sdk/middleware-eventstream/dist-es/eventStreamHandlingMiddleware.js',
      '@aws-sdk/client-bedrock-runtime/dist-es/commands/InvokeModelWithBidirectionalStreamCommand.js',
      '@smithy/node-http-handler/dist-es/node-http2-handler.js',
    ];
    expect(inputsOf(group).filter((input) => readers.some((reader) => input.endsWith(reader)))).toEqual([]);
  });

  it('reads what its cold start runs from two files: the entry and one chunk', () => {
    // Each module Node's loader reads at init costs about a third of a millisecond on its own
    // (init-in-one-chunk.ts); lazily loaded routes and providers must not cut init into more.
    expect(bundleOf(group).result.atInit.length).toBeLessThanOrEqual(2);
  });

  it('gives V8 functions to compile at its cold start, not module-level arrows, which compile several times slower', async () => {
    const { result } = bundleOf(group);
    const counts = { arrows: 0, functions: 0 };
    for (const output of result.atInit) {
      const { arrows, functions } = topLevelFunctions(await readFile(path.resolve(output), 'utf8'));
      counts.arrows += arrows.length;
      counts.functions += functions;
    }
    // What stays is esbuild's own helpers and the arrows that read `this` (top-level-functions.ts).
    expect(counts.functions).toBeGreaterThan(20 * counts.arrows);
  });

  it('starts zod only if an endpoint that validates a body loads with it', () => {
    // The models and fallback functions validate no body, and the admin and console functions load
    // each route (and its schemas) on its first request: zod would be 20 KB of their cold start.
    const zodAtInit = inputsOf(group, true).some((input) => input.includes('node_modules/zod/'));
    expect(zodAtInit).toBe(!['models', 'fallback', 'admin', 'console'].includes(group));
  });

  it('carries the event-stream decoder only if it talks to Bedrock', () => {
    const decoder = inputsOf(group).filter((input) => input.includes('@smithy/core/dist-es/submodules/event-streams/'));
    if (eventStreamGroups.includes(group)) expect(decoder.length).toBeGreaterThan(0);
    else expect(decoder).toEqual([]);
  });

  it('takes every Node built-in from process.getBuiltinModule, so that no module facade loads what the code does not use', () => {
    const { allCode } = bundleOf(group);
    const imported = [...allCode.matchAll(/(?:from\s*|import\s*\(\s*)["']((?:node:)?[a-z_/]+)["']/g)]
      .map((match) => match[1]!)
      .filter((specifier) => builtinModules.includes(specifier.replace(/^node:/, '')));
    expect([...new Set(imported)]).toEqual([]);
    expect(allCode.includes('process.getBuiltinModule("node:')).toBe(true);
  });

  it('loads the SDK clients (DynamoDB, Bedrock Runtime, Secrets Manager) and the Cognito token verifier only when first needed', () => {
    const onDemand =
      /node_modules\/(@aws-sdk\/(client-(dynamodb|bedrock-runtime|secrets-manager)|lib-dynamodb)|aws-jwt-verify)\//;
    expect(inputsOf(group, true).filter((input) => onDemand.test(input))).toEqual([]);
    const chunks = bundleOf(group).files.filter((file) => file !== 'index.mjs');
    for (const chunk of chunks) expect(chunk).toMatch(new RegExp(`^${chunkDirectory}/[\\w-]+\\.mjs$`));
  });

  it('loads in a fresh Node process with only Lambda’s environment, and exports a handler', async () => {
    const results = await invokeBundle(
      bundleOf(group).result.outfile,
      [],
      lambdaLikeEnvironment(`model-gateway-${group}`),
    );
    expect(results).toEqual([]);
  });
});

describe('the bundles on the paths the gateway takes', () => {
  const BEDROCK_MODEL = 'anthropic.claude-fake-v1:0';
  const SECRET_PREFIX = 'model-gateway/bundle-test/channels';
  const RELAY_KEY = 'sk-upstream-for-the-bundle-test-0001';

  let bedrock: FakeUpstream;
  let openai: FakeUpstream;
  let secrets: FakeSecretsManager;
  let gateway: TestGateway;
  let userKey: string;
  let channelPut: InvocationResult | undefined;

  interface EventOptions {
    readonly key: string;
    readonly body?: unknown;
    readonly pathParameters?: Record<string, string>;
  }

  /** An API Gateway event for a route (path parameters filled in), with a key and a JSON body. */
  const apiEvent = (method: string, resource: string, options: EventOptions): APIGatewayProxyEvent =>
    proxyEvent({
      resource,
      path: resource.replace(/\{(\w+)\}/g, (_, name: string) => options.pathParameters?.[name] ?? name),
      pathParameters: options.pathParameters ?? null,
      httpMethod: method,
      headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
      body: options.body === undefined ? null : JSON.stringify(options.body),
      requestContext: {
        requestId: `bundle-${Math.random().toString(36).slice(2)}`,
        identity: { sourceIp: '127.0.0.1' },
      },
    } as unknown as Partial<APIGatewayProxyEvent>);

  /** Runs a group's built bundle against the test's store, Secrets Manager and upstreams. */
  const invoke = (group: FunctionGroup, events: APIGatewayProxyEvent[], extra: NodeJS.ProcessEnv = {}) =>
    invokeBundle(bundleOf(group).result.outfile, events, {
      ...lambdaLikeEnvironment(`model-gateway-${group}`),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      SECRETS_MANAGER_ENDPOINT: secrets.endpoint,
      UPSTREAM_SECRET_PREFIX: SECRET_PREFIX,
      ...extra,
    });

  const chatEvent = (model: string, stream = false) =>
    apiEvent('POST', '/v1/chat/completions', {
      key: userKey,
      body: { model, stream, messages: [{ role: 'user', content: 'Hello Bedrock' }] },
    });

  const streamedText = (body: string) =>
    body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)).choices[0]?.delta?.content ?? '')
      .join('');

  beforeAll(async () => {
    bedrock = await startFakeUpstream(bedrockRoutes(BEDROCK_MODEL));
    openai = await startFakeUpstream();
    secrets = await startFakeSecretsManager();
    // The store and its first records come from the sources; everything asserted below runs in bundles.
    gateway = await startTestGateway();
    ({ key: userKey } = await gateway.createAccountWithKey());
    const created = await gateway.admin('PUT', '/admin/v1/channels/bundle-bedrock', {
      type: 'bedrock',
      baseUrl: bedrock.origin,
      models: ['claude-on-bedrock'],
      modelMap: { 'claude-on-bedrock': BEDROCK_MODEL },
    });
    expect(created.status).toBe(200);
    [channelPut] = await invoke('admin', [
      apiEvent('PUT', '/admin/v1/channels/{id}', {
        key: gateway.adminKey,
        pathParameters: { id: 'bundle-relay' },
        body: { type: 'openai', baseUrl: openai.baseUrl, models: ['gpt-relayed'], apiKey: RELAY_KEY },
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bedrock?.close();
    await openai?.close();
    await secrets?.close();
  });

  it('the admin bundle keeps a channel key in Secrets Manager', () => {
    expect(channelPut?.statusCode).toBe(200);
    expect(JSON.parse(channelPut!.body)).toMatchObject({ id: 'bundle-relay', hasApiKey: true });
    expect(secrets.secret(`${SECRET_PREFIX}/bundle-relay`)?.value).toBe(RELAY_KEY);
  });

  it('the chat bundle answers on a Bedrock channel, signed with SigV4 and the function’s credentials', async () => {
    const [answer, streamed] = await invoke('chat', [
      chatEvent('claude-on-bedrock'),
      chatEvent('claude-on-bedrock', true),
    ]);

    expect(answer!.statusCode).toBe(200);
    expect(JSON.parse(answer!.body).choices[0].message.content).toBe('Echo: Hello Bedrock');
    expect(streamed!.statusCode).toBe(200);
    expect(streamedText(streamed!.body)).toBe('Echo: Hello Bedrock');
    const calls = bedrock.received.slice(-2);
    expect(calls.map((call) => call.path)).toEqual([
      `/model/${encodeURIComponent(BEDROCK_MODEL)}/converse`,
      `/model/${encodeURIComponent(BEDROCK_MODEL)}/converse-stream`,
    ]);
    for (const call of calls)
      expect(call.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDBUNDLERUNNER\//);
  });

  it('the chat bundle signs with credentials from Lambda’s credentials endpoint when the environment has no keys', async () => {
    let asked = 0;
    const credentialsEndpoint = createServer((request, response) => {
      asked += 1;
      const authorized = request.headers.authorization === 'endpoint-token';
      response.writeHead(authorized ? 200 : 403, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          AccessKeyId: 'ASIAFROMENDPOINT',
          SecretAccessKey: 'endpoint-secret',
          Token: 'endpoint-session',
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => credentialsEndpoint.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = credentialsEndpoint.address() as AddressInfo;
      const [answer] = await invoke('chat', [chatEvent('claude-on-bedrock')], {
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
        AWS_SESSION_TOKEN: undefined,
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/2018-06-01/credentials`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'endpoint-token',
      });

      expect(answer!.statusCode).toBe(200);
      const [call] = bedrock.received.slice(-1);
      expect(call!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIAFROMENDPOINT\//);
      expect(call!.headers['x-amz-security-token']).toBe('endpoint-session');
      // Asked by the store's calls and by the Bedrock client, each keeping what it got.
      expect(asked).toBeGreaterThanOrEqual(1);
      expect(asked).toBeLessThanOrEqual(2);
    } finally {
      await new Promise<void>((resolve) => credentialsEndpoint.close(() => resolve()));
    }
  });

  it('the chat bundle still takes a Bedrock API key from AWS_BEARER_TOKEN_BEDROCK', async () => {
    const [answer] = await invoke('chat', [chatEvent('claude-on-bedrock')], {
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-1',
    });

    expect(answer!.statusCode).toBe(200);
    expect(bedrock.received.at(-1)!.headers.authorization).toBe('Bearer bedrock-api-key-1');
  });

  it('the chat bundle relays with the channel key it reads from Secrets Manager', async () => {
    const [answer] = await invoke('chat', [chatEvent('gpt-relayed')]);

    expect(answer!.statusCode).toBe(200);
    expect(openai.received.at(-1)!.headers.authorization).toBe(`Bearer ${RELAY_KEY}`);
  });

  itUnderRuntimeClient(
    'under AWS’s runtime interface client, the chat bundle streams through its response stream, on a route loaded at its first request',
    async () => {
      const environment = {
        ...functionEnvironment('chat'),
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        SECRETS_MANAGER_ENDPOINT: secrets.endpoint,
        UPSTREAM_SECRET_PREFIX: SECRET_PREFIX,
      };
      const [streamed, message] = await invokeUnderRuntimeClient(
        bundleOf('chat').result.outfile,
        [
          chatEvent('gpt-relayed', true),
          apiEvent('POST', '/v1/messages', {
            key: userKey,
            body: { model: 'gpt-relayed', max_tokens: 64, messages: [{ role: 'user', content: 'Hello Messages' }] },
          }),
        ],
        environment,
      );

      expect(streamed!.statusCode).toBe(200);
      expect(streamed!.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(streamedText(streamed!.body)).toBe('Echo: Hello Bedrock');
      expect(streamed!.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(message!.statusCode).toBe(200);
      expect(JSON.parse(message!.body)).toMatchObject({
        type: 'message',
        content: [{ type: 'text', text: 'Echo: Hello Messages' }],
      });
    },
  );

  itUnderRuntimeClient(
    'under AWS’s runtime interface client, a bundle that fails at init is reported, not waited for',
    async () => {
      await inTemporaryDirectory('gateway-init-failure-', async (directory) => {
        const outfile = path.join(directory, 'index.mjs');
        await writeFile(
          outfile,
          "throw new Error('the module failed at init');\nexport const handler = async () => ({});\n",
        );

        await expect(startUnderRuntimeClient(outfile, lambdaLikeEnvironment('init-failure'))).rejects.toMatchObject({
          report: expect.stringContaining('the module failed at init'),
        });
      });
    },
  );

  itUnderRuntimeClient(
    'under AWS’s runtime interface client, a handler loads its modules without the stand-in’s hooks, as on Lambda',
    () =>
      inTemporaryDirectory('gateway-hooks-', async (directory) => {
        // Through the hooks, a path ending in rapid-client.node would resolve to the stand-in.
        const handler = path.join(directory, 'index.mjs');
        await writeFile(
          handler,
          "const hooked = await import('./missing/rapid-client.node').then(() => true, () => false);\n" +
            "export const handler = async () => ({ statusCode: 200, body: hooked ? 'hooked' : 'plain' });\n",
        );
        const [answer] = await invokeUnderRuntimeClient(
          handler,
          [apiEvent('GET', '/health', { key: 'sk-unused' })],
          lambdaLikeEnvironment('hooks'),
        );
        expect(answer).toMatchObject({ statusCode: 200, body: 'plain' });
      }),
  );

  itUnderRuntimeClient(
    'under AWS’s runtime interface client, a function starts through its exec wrapper: Node gets the V8 flags, and the runtime’s own command line after them',
    () =>
      inTemporaryDirectory('gateway-exec-wrapper-', async (directory) => {
        const handler = path.join(directory, 'index.mjs');
        await writeFile(
          handler,
          'export const handler = async () => ({ statusCode: 200, body: JSON.stringify(process.execArgv) });\n',
        );
        await writeExecWrapper(directory);
        const [answer] = await invokeUnderRuntimeClient(
          handler,
          [apiEvent('GET', '/health', { key: 'sk-unused' })],
          functionEnvironment('fallback'),
        );
        const execArgv = JSON.parse(answer!.body) as string[];
        expect(execArgv.slice(0, V8_TIERING_FLAGS.length)).toEqual([...V8_TIERING_FLAGS]);
        // The runtime's own arguments follow, untouched: here the stand-in's hooks.
        expect(execArgv.slice(V8_TIERING_FLAGS.length)).toEqual(['--import', nativeClientHooks]);
      }),
  );

  itUnderRuntimeClient(
    'under AWS’s runtime interface client, the models bundle answers with its buffered response',
    async () => {
      const [listed, refused] = await invokeUnderRuntimeClient(
        bundleOf('models').result.outfile,
        [apiEvent('GET', '/v1/models', { key: userKey }), apiEvent('GET', '/v1/models', { key: 'sk-not-a-key' })],
        { ...functionEnvironment('models'), DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      );

      expect(listed!.statusCode).toBe(200);
      expect(JSON.parse(listed!.body).data.map((model: { id: string }) => model.id)).toContain('gpt-relayed');
      expect(refused!.statusCode).toBe(401);
      expect(JSON.parse(refused!.body).error.code).toBe('invalid_api_key');
    },
  );

  it('the console bundle loads the Cognito token verifier with the first session, and refuses a bad token', async () => {
    // A token that is not a JWT fails before any key set is fetched: no network is needed.
    const [refused] = await invoke('console', [apiEvent('GET', '/console/api/me', { key: 'not-a-jwt' })], {
      GATEWAY_CONSOLE_USER_POOL_ID: 'us-east-1_bundletest',
      GATEWAY_CONSOLE_CLIENT_ID: 'bundle-test-client',
    });

    expect(refused!.statusCode).toBe(401);
    expect(JSON.parse(refused!.body).error.message).toMatch(/Sign in again/);
  });

  it('the models bundle lists the models of the store', async () => {
    const [listed] = await invoke('models', [apiEvent('GET', '/v1/models', { key: userKey })]);

    expect(listed!.statusCode).toBe(200);
    expect(JSON.parse(listed!.body).data.map((model: { id: string }) => model.id)).toEqual(
      expect.arrayContaining(['claude-on-bedrock', 'gpt-relayed']),
    );
  });

  it('a bundle whose store the SDK must resolve (an endpoint URL set for the SDK) loads the SDK client and reads through it', async () => {
    const endpoint = process.env.DYNAMODB_ENDPOINT!;
    const [listed] = await invoke('models', [apiEvent('GET', '/v1/models', { key: userKey })], {
      DYNAMODB_ENDPOINT: undefined,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    });

    expect(listed!.statusCode).toBe(200);
    expect(JSON.parse(listed!.body).data.map((model: { id: string }) => model.id)).toEqual(
      expect.arrayContaining(['claude-on-bedrock', 'gpt-relayed']),
    );
  });
});

describe('the deployed bundles', () => {
  // Synthesis bundles every group twice (NodejsFunction's one-file pass, then the split rewrite).
  it('are byte for byte the bundles that npm run build measures, module replacements included', async () => {
    const stack = synthesizeGatewayStack({}, { bundle: true });
    const assembly = (stack.node.root as App).synth();
    const template = assembly.getStackByName(stack.stackName).template;
    /** Every file of a group's deployed asset, entry and chunks, by path inside the asset. */
    const deployed = async (group: FunctionGroup) => {
      const functionId = stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as CfnElement);
      const assetHash = (template.Resources[functionId].Properties.Code.S3Key as string).replace(/\.zip$/, '');
      const directory = path.join(assembly.directory, `asset.${assetHash}`);
      const files = (await readdir(directory, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
        .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
        .sort();
      const contents = await Promise.all(files.map((file) => readFile(path.join(directory, file), 'utf8')));
      return { directory, files, allCode: contents.join('\n') };
    };
    for (const group of allGroups) {
      const asset = await deployed(group);
      expect([group, asset.files]).toEqual([group, bundleOf(group).files]);
      expect([group, asset.allCode === bundleOf(group).allCode]).toEqual([group, true]);
      // The exec wrapper the function's environment names is in its asset, executable (the zip keeps modes).
      const functionId = stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as CfnElement);
      const variables = template.Resources[functionId].Properties.Environment.Variables as Record<string, string>;
      expect([group, variables.AWS_LAMBDA_EXEC_WRAPPER]).toEqual([group, EXEC_WRAPPER_ON_LAMBDA]);
      const wrapper = path.join(asset.directory, EXEC_WRAPPER_FILE);
      expect([group, await readFile(wrapper, 'utf8')]).toEqual([group, execWrapperScript()]);
      expect([group, (await stat(wrapper)).mode & 0o111]).toEqual([group, 0o111]);
    }
  }, 240_000);
});
