import {
  defaultOwner,
  providerCapabilities,
  servedEndpoints,
} from '../../functions/shared/providers/provider-capabilities.js';
import { endpointKinds, type ChannelType, type EndpointKind } from '../../functions/shared/store/channels.js';
import { endpointPaths } from '../../functions/models/endpoint-paths.js';
import { anthropicRoutes } from '../support/fake-upstream/anthropic-wire.js';
import { bedrockRoutes } from '../support/fake-upstream/bedrock-wire.js';
import { startFakeUpstream, type FakeUpstream, type WireRoute } from '../support/fake-upstream/fake-upstream.js';
import { geminiRoutes } from '../support/fake-upstream/gemini-wire.js';
import { openAiEmbeddingsRoutes } from '../support/fake-upstream/openai-embeddings-wire.js';
import { openAiImagesRoutes } from '../support/fake-upstream/openai-images-wire.js';
import { openAiResponsesRoutes } from '../support/fake-upstream/openai-responses-wire.js';
import { openAiSpeechRoutes } from '../support/fake-upstream/openai-speech-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { runId } from '../support/gateway-target.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';

/**
 * Walks the provider registry (the capability table and the adapters it requires): for every channel type and every endpoint it advertises, a request
 * through the gateway to a channel of that type (on the fake upstream speaking the vendor's wire)
 * must answer. An advertised capability without a working adapter fails here, by construction.
 */

const UPSTREAM_MODEL = 'registry-upstream-model';

/** How a channel of each type is reached: the fake's routes and the channel's base URL. */
const upstreamSetups: Readonly<
  Record<
    ChannelType,
    { routes: Record<string, WireRoute>; baseUrl: (upstream: FakeUpstream) => string; keyed: boolean } | undefined
  >
> = {
  openai: {
    routes: {
      ...openAiRoutes,
      ...openAiResponsesRoutes,
      ...openAiEmbeddingsRoutes,
      ...openAiImagesRoutes,
      ...openAiSpeechRoutes,
    },
    baseUrl: (upstream) => upstream.baseUrl,
    keyed: true,
  },
  anthropic: { routes: anthropicRoutes, baseUrl: (upstream) => upstream.origin, keyed: true },
  gemini: { routes: geminiRoutes(UPSTREAM_MODEL), baseUrl: (upstream) => upstream.origin, keyed: true },
  // Bedrock takes no key: the gateway signs with its own AWS credentials.
  bedrock: { routes: bedrockRoutes(UPSTREAM_MODEL), baseUrl: (upstream) => upstream.origin, keyed: false },
  demo: undefined,
};

interface Probe {
  readonly name: string;
  readonly path: (model: string) => string;
  readonly body: (model: string) => unknown;
  /** Throws (through expect) unless the answer is a whole, successful one in the path's protocol. */
  readonly check: (result: HttpResult, model: string) => void;
}

const user = (text: string) => [{ role: 'user', content: text }];

/** The requests that prove an endpoint kind answers, in every client protocol that reaches it. */
const probes: Readonly<Record<EndpointKind, readonly Probe[]>> = {
  chat: [
    {
      name: 'chat completion',
      path: () => '/v1/chat/completions',
      body: (model) => ({ model, messages: user('Hello registry') }),
      check: (result, model) => {
        expect(result.body).toMatchObject({ object: 'chat.completion', model });
        expect(result.body.choices[0].message.role).toBe('assistant');
      },
    },
    {
      name: 'streamed chat completion',
      path: () => '/v1/chat/completions',
      body: (model) => ({ model, messages: user('Hello registry'), stream: true }),
      check: (result) => expect(result.text.trimEnd().endsWith('data: [DONE]')).toBe(true),
    },
    {
      name: 'Gemini generateContent',
      path: (model) => `/v1beta/models/${model}:generateContent`,
      body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Hello registry' }] }] }),
      check: (result) => expect(result.body.candidates[0].content.parts.length).toBeGreaterThan(0),
    },
    {
      name: 'Gemini streamGenerateContent',
      path: (model) => `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
      body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Hello registry' }] }] }),
      check: (result) => expect(result.text).toContain('"finishReason"'),
    },
  ],
  messages: [
    {
      name: 'message',
      path: () => '/v1/messages',
      body: (model) => ({ model, max_tokens: 64, messages: user('Hello registry') }),
      check: (result, model) => expect(result.body).toMatchObject({ type: 'message', role: 'assistant', model }),
    },
    {
      name: 'streamed message',
      path: () => '/v1/messages',
      body: (model) => ({ model, max_tokens: 64, messages: user('Hello registry'), stream: true }),
      check: (result) => expect(result.text).toContain('event: message_stop'),
    },
    {
      name: 'count_tokens',
      path: () => '/v1/messages/count_tokens',
      body: (model) => ({ model, messages: user('Hello registry') }),
      check: (result) => expect(result.body.input_tokens).toBeGreaterThan(0),
    },
  ],
  responses: [
    {
      name: 'response',
      path: () => '/v1/responses',
      body: (model) => ({ model, input: 'Hello registry' }),
      check: (result, model) => expect(result.body).toMatchObject({ object: 'response', status: 'completed', model }),
    },
    {
      name: 'streamed response',
      path: () => '/v1/responses',
      body: (model) => ({ model, input: 'Hello registry', stream: true }),
      check: (result) => expect(result.text).toContain('event: response.completed'),
    },
  ],
  embeddings: [
    {
      name: 'embeddings',
      path: () => '/v1/embeddings',
      body: (model) => ({ model, input: ['first', 'second'], encoding_format: 'float' }),
      check: (result, model) => {
        expect(result.body).toMatchObject({ object: 'list', model });
        expect(result.body.data.map((item: { index: number }) => item.index)).toEqual([0, 1]);
        for (const item of result.body.data) expect(item.embedding.length).toBeGreaterThan(0);
        expect(result.body.usage.prompt_tokens).toBeGreaterThan(0);
      },
    },
  ],
  images: [
    {
      name: 'image generation',
      path: () => '/v1/images/generations',
      body: (model) => ({ model, prompt: 'a registry', n: 1 }),
      check: (result) => expect(result.body.data[0].b64_json ?? result.body.data[0].url).toEqual(expect.any(String)),
    },
  ],
  speech: [
    {
      name: 'speech',
      path: () => '/v1/audio/speech',
      body: (model) => ({ model, input: 'Hello registry', voice: 'alloy', response_format: 'wav' }),
      check: (result) => {
        expect(result.headers.get('content-type')).toMatch(/^audio\//);
        expect(result.text.length).toBeGreaterThan(0);
      },
    },
  ],
};

let restoreAwsEnvironment: () => void = () => undefined;

const channelTypes = Object.keys(providerCapabilities) as ChannelType[];
const publicModel = (type: ChannelType) => `registry-${type}-${runId}`;
const upstreams = new Map<ChannelType, FakeUpstream>();
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  restoreAwsEnvironment = setFakeAwsCredentials('AKIDREGISTRYTEST');
  gateway = await startTestGateway();
  for (const type of channelTypes) {
    const setup = upstreamSetups[type];
    const upstream = setup ? await startFakeUpstream(setup.routes) : undefined;
    if (upstream) upstreams.set(type, upstream);
    const model = publicModel(type);
    const put = await gateway.admin('PUT', `/admin/v1/channels/registry-${type}-${runId}`, {
      type,
      models: [model],
      ...(upstream && setup
        ? {
            baseUrl: setup.baseUrl(upstream),
            ...(setup.keyed ? { apiKey: `registry-upstream-key-${type}` } : {}),
            modelMap: { [model]: UPSTREAM_MODEL },
            timeouts: { firstByteMs: 5000, idleMs: 5000 },
          }
        : {}),
    });
    expect({ status: put.status, text: put.status === 200 ? '' : put.text }).toEqual({ status: 200, text: '' });
  }
  ({ key } = await gateway.createAccountWithKey());
});

afterAll(async () => {
  await gateway?.close();
  for (const upstream of upstreams.values()) await upstream.close();
  restoreAwsEnvironment();
});

describe.each(channelTypes)('a %s channel', (type) => {
  const model = publicModel(type);

  it('is listed with exactly the endpoints the registry gives its type', async () => {
    const list = await gateway.request('GET', '/v1/models', { key });
    expect(list.status).toBe(200);
    const entry = list.body.data.find((listed: { id: string }) => listed.id === model);
    expect(entry.supported_endpoints).toEqual(servedEndpoints(type).map((kind) => endpointPaths[kind]));
    expect(entry.owned_by).toBe(defaultOwner(type));
  });

  const cases = servedEndpoints(type).flatMap((kind) =>
    probes[kind].map((probe) => [kind, probe.name, probe] as const),
  );
  it.each(cases)('serves %s: %s', async (_kind, _name, probe) => {
    const upstream = upstreams.get(type);
    const sentBefore = upstream?.received.length ?? 0;
    const result = await gateway.request('POST', probe.path(model), { key, body: probe.body(model) });
    expect({ status: result.status, text: result.status === 200 ? '' : result.text }).toEqual({
      status: 200,
      text: '',
    });
    probe.check(result, model);
    // Proof that the type's own adapter spoke to its upstream (count_tokens may count locally).
    if (upstream && probe.name !== 'count_tokens') expect(upstream.received.length).toBeGreaterThan(sentBefore);
  });

  const unserved = endpointKinds.filter((kind) => !servedEndpoints(type).includes(kind));
  if (unserved.length > 0) {
    it.each(unserved)('does not answer %s with success', async (kind) => {
      const probe = probes[kind][0]!;
      const result = await gateway.request('POST', probe.path(model), { key, body: probe.body(model) });
      expect(result.status).toBeGreaterThanOrEqual(400);
      expect(result.body).toBeDefined();
    });
  }
});
