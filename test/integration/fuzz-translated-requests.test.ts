import fc from 'fast-check';
import { resetChannelHealth } from '../../functions/shared/routing/channel-health.js';
import { isEnvelopeOfPath } from '../support/error-envelopes.js';
import { anthropicRoutes } from '../support/fake-upstream/anthropic-wire.js';
import { bedrockRoutes } from '../support/fake-upstream/bedrock-wire.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { geminiRoutes } from '../support/fake-upstream/gemini-wire.js';
import { openAiResponsesRoutes } from '../support/fake-upstream/openai-responses-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { hostileValue, mutate, PROTOTYPE_NAMES } from '../support/fuzz/hostile-requests.js';
import { everyChangeOf } from '../support/fuzz/single-changes.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';

/**
 * Property: a client request of any protocol (token counts included), valid but for a hostile value
 * or a missing member, sent to a model of each channel type, is answered below 500 in its path's
 * envelope (or relayed as the upstream answered it), with a request id and no key: the request
 * translations (to Anthropic's, Gemini's, Bedrock's and OpenAI's formats) meet whatever the client
 * schemas let through. The route fuzz reaches only the demo channel; this one reaches the
 * translations, starting from requests rich enough to use them all: system text, images, tool
 * definitions, tool calls and their results.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const UPSTREAM_MODEL = 'upstream-model';
const UPSTREAM_KEY = `sk-upstream-${'t'.repeat(40)}`;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** What the gateway says of a failure of its own, never of the upstream's or the client's. */
const OWN_FAILURE = 'The server had an error while processing your request.';
const TOOL_SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };

type ChannelType = 'openai' | 'anthropic' | 'gemini' | 'bedrock';
const CHANNEL_TYPES: readonly ChannelType[] = ['openai', 'anthropic', 'gemini', 'bedrock'];
const modelOf = (type: ChannelType) => `translate-${type}`;

interface ClientRequest {
  readonly path: (model: string, stream: boolean) => string;
  readonly headers: (key: string) => Record<string, string>;
  readonly body: (model: string, stream: boolean) => Record<string, unknown>;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Each client protocol's request, as rich as its format allows. */
const clientRequests: Record<string, ClientRequest> = {
  chat: {
    path: () => '/v1/chat/completions',
    headers: bearer,
    body: (model, stream) => ({
      model,
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look this up' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'found it' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', description: 'looks up', parameters: TOOL_SCHEMA } }],
      tool_choice: 'auto',
      max_tokens: 16,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['\n\n'],
      n: 1,
      seed: 7,
      user: 'fuzzer',
      logit_bias: { '50256': -100 },
      reasoning_effort: 'low',
      parallel_tool_calls: true,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', strict: true, schema: { ...TOOL_SCHEMA, additionalProperties: false } },
      },
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  },
  messages: {
    path: () => '/v1/messages',
    headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: (model, stream) => ({
      model,
      max_tokens: 16,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look this up' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'a lookup will do', signature: 'c2lnbmF0dXJl' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'found it' }] },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'a note' } },
          ],
        },
      ],
      tools: [{ name: 'lookup', description: 'looks up', input_schema: TOOL_SCHEMA }],
      tool_choice: { type: 'tool', name: 'lookup' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      metadata: { user_id: 'fuzzer' },
      top_k: 5,
      stop_sequences: ['\n\n'],
      stream,
    }),
  },
  countTokens: {
    path: () => '/v1/messages/count_tokens',
    headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: (model) => ({
      model,
      system: 'be brief',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look this up' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found it' }] },
      ],
      tools: [{ name: 'lookup', description: 'looks up', input_schema: TOOL_SCHEMA }],
    }),
  },
  geminiCountTokens: {
    path: (model) => `/v1beta/models/${model}:countTokens`,
    headers: (key) => ({ 'x-goog-api-key': key }),
    body: () => ({
      contents: [
        { role: 'user', parts: [{ text: 'look this up' }, { inlineData: { mimeType: 'image/png', data: PNG } }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
      ],
    }),
  },
  gemini: {
    path: (model, stream) => `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: (key) => ({ 'x-goog-api-key': key }),
    body: () => ({
      systemInstruction: { parts: [{ text: 'be brief' }] },
      contents: [
        { role: 'user', parts: [{ text: 'look this up' }, { inlineData: { mimeType: 'image/png', data: PNG } }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { result: 'found it' } } }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'lookup',
              description: 'looks up',
              parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      generationConfig: {
        maxOutputTokens: 16,
        temperature: 0.5,
        topP: 0.9,
        topK: 5,
        stopSequences: ['\n\n'],
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] },
        thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
      },
    }),
  },
  responses: {
    path: () => '/v1/responses',
    headers: bearer,
    body: (model, stream) => ({
      model,
      instructions: 'be brief',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look this up' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'found it' },
      ],
      tools: [{ type: 'function', name: 'lookup', description: 'looks up', parameters: TOOL_SCHEMA }],
      tool_choice: { type: 'function', name: 'lookup' },
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'answer', schema: TOOL_SCHEMA, strict: false } },
      temperature: 0.5,
      max_output_tokens: 16,
      stream,
    }),
  },
};

/** The request's body with one or two hostile values, one member left out, a prototype name added, or none of these. */
const hostileBody = (sample: Record<string, unknown>) =>
  fc.oneof(
    // The request untouched: it must be answered in full.
    { weight: 1, arbitrary: fc.constant(sample) },
    {
      weight: 5,
      arbitrary: fc.tuple(hostileValue, fc.nat()).map(([replacement, pick]) => mutate(sample, replacement, pick)),
    },
    { weight: 2, arbitrary: fc.nat().map((pick) => mutate(sample, undefined, pick)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(hostileValue, fc.nat(), hostileValue, fc.nat())
        .map(([first, at, second, then]) => mutate(mutate(sample, first, at), second, then)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...PROTOTYPE_NAMES), hostileValue, fc.nat())
        .map(([name, value, pick]) =>
          mutate(sample, JSON.parse(`{"${name}":${JSON.stringify(value) ?? 'null'}}`), pick),
        ),
    },
  );

let restoreAwsEnvironment: () => void = () => undefined;

let upstreams: FakeUpstream[] = [];
let gateway: TestGateway;
let key: string;

const run = describeInProcess('the channels are reset between runs');

run('every request translation under hostile client input', () => {
  beforeAll(async () => {
    restoreAwsEnvironment = setFakeAwsCredentials('AKIDFUZZTRANSLATE');
    const routes: Record<ChannelType, Parameters<typeof startFakeUpstream>[0]> = {
      openai: { ...openAiRoutes, ...openAiResponsesRoutes },
      anthropic: anthropicRoutes,
      gemini: geminiRoutes(UPSTREAM_MODEL),
      bedrock: bedrockRoutes(UPSTREAM_MODEL),
    };
    upstreams = await Promise.all(CHANNEL_TYPES.map((type) => startFakeUpstream(routes[type])));
    gateway = await startTestGateway();
    for (const [index, type] of CHANNEL_TYPES.entries()) {
      const upstream = upstreams[index]!;
      const created = await gateway.admin('PUT', `/admin/v1/channels/translate-${type}`, {
        type,
        baseUrl: type === 'openai' ? upstream.baseUrl : upstream.origin,
        ...(type === 'bedrock' ? {} : { apiKey: UPSTREAM_KEY }),
        models: [modelOf(type)],
        modelMap: { [modelOf(type)]: UPSTREAM_MODEL },
        timeouts: { connectMs: 1000, firstByteMs: 3000, idleMs: 2000 },
      });
      if (created.status !== 200) throw new Error(`channel setup failed: ${created.text}`);
    }
    ({ key } = await gateway.createAccountWithKey());
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
    restoreAwsEnvironment();
  });

  /** What a Messages client may put in `anthropic-beta`: betas it names, and lists no client should send. */
  const ANTHROPIC_BETAS: readonly { readonly value: string | undefined; readonly valid: boolean }[] = [
    { value: undefined, valid: true },
    { value: 'interleaved-thinking-2025-05-14', valid: true },
    { value: 'context-1m-2025-08-07, fine-grained-tool-streaming-2025-05-14', valid: true },
    { value: ',, ,', valid: false },
    { value: '__proto__,constructor', valid: false },
    { value: `${'x'.repeat(3000)},interleaved-thinking-2025-05-14`, valid: false },
  ];

  /** What is wrong with an answer to a request that is valid but for one value: a fault, or `undefined`. */
  const faultOf = (path: string, response: Response, text: string): string | undefined => {
    if (response.status === 500 || response.status >= 600) return "the gateway's own failure";
    // A stream's own failure travels as an event after the 200: the gateway's own is never one of them.
    if (text.includes(OWN_FAILURE)) return "the gateway's own failure in the answer";
    if ((response.headers.get('x-request-id') ?? '').length < 8) return 'no request id';
    if (text.includes(key) || text.includes(UPSTREAM_KEY)) return 'a key in the answer';
    if (response.status < 400) return undefined;
    try {
      return isEnvelopeOfPath(path, response.status, JSON.parse(text)) ? undefined : "not the path's envelope";
    } catch {
      return 'an error answer that is not JSON';
    }
  };

  it('answers below 500, in the path’s envelope, with a request id and no key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(clientRequests)),
        fc.constantFrom(...CHANNEL_TYPES),
        fc.boolean(),
        fc.gen(),
        fc.constantFrom(...ANTHROPIC_BETAS),
        async (protocol, type, stream, generate, beta) => {
          resetChannelHealth();
          const request = clientRequests[protocol]!;
          const model = modelOf(type);
          const sample = request.body(model, stream);
          const body = generate(hostileBody, sample);
          const path = request.path(model, stream);
          const response = await fetch(`${gateway.url}${path}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...request.headers(key),
              ...(beta.value !== undefined && (protocol === 'messages' || protocol === 'countTokens')
                ? { 'anthropic-beta': beta.value }
                : {}),
            },
            body: JSON.stringify(body) ?? 'null',
            signal: AbortSignal.timeout(15_000),
          });
          const text = await response.text();
          const where = `${protocol} on ${type} → ${response.status} ${text.slice(0, 400)}\nsent ${JSON.stringify(body).slice(0, 1500)}`;
          if (
            body === sample &&
            beta.valid &&
            (response.status !== 200 || /^event: error$|^data: \{"error"/m.test(text))
          )
            throw new Error(`a valid request not answered in full: ${where}`);
          const fault = faultOf(path, response, text);
          if (fault) throw new Error(`${fault}: ${where}`);
        },
      ),
      { numRuns: RUNS },
    );
    expect((await gateway.request('GET', '/health')).status).toBe(200);
  }, 600_000);

  it('answers each rich request with any one value changed or left out, every one in turn, on every channel type', async () => {
    const faults: string[] = [];
    const statuses = new Set<number>();
    for (const [protocol, request] of Object.entries(clientRequests))
      for (const type of CHANNEL_TYPES) {
        const model = modelOf(type);
        const path = request.path(model, false);
        for (const body of everyChangeOf(request.body(model, false))) {
          resetChannelHealth();
          const response = await fetch(`${gateway.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...request.headers(key) },
            body: JSON.stringify(body) ?? 'null',
            signal: AbortSignal.timeout(15_000),
          });
          const text = await response.text();
          statuses.add(response.status);
          const fault = faultOf(path, response, text);
          if (fault && faults.length < 10)
            faults.push(
              `${fault}: ${protocol} on ${type} → ${response.status} ${text.slice(0, 300)}\nsent ${JSON.stringify(body).slice(0, 800)}`,
            );
        }
      }
    expect(faults).toEqual([]);
    // Translated and answered, and refused for what a change made of them: both happened.
    expect(statuses.has(200) && [...statuses].some((status) => status >= 400 && status < 500)).toBe(true);
  }, 1_200_000);
});
