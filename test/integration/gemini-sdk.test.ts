import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { GENEROUS_TIMEOUTS } from '../support/channel-timeouts.js';

const GEMINI_KEY = 'AIza-upstream-secret-0123456789';

let geminiUpstream: FakeUpstream;
let openAiUpstream: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let gateway: TestGateway;
let key: string;
let genai: GoogleGenAI;
let openai: OpenAI;

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: { city: { type: 'string', default: 'Paris' } },
      required: ['city'],
    },
  },
};

beforeAll(async () => {
  geminiUpstream = await startUpstream({ wire: 'gemini', upstreamModel: 'gemini-upstream' });
  openAiUpstream = await startUpstream({ wire: 'openai' });
  anthropicUpstream = await startUpstream({ wire: 'anthropic' });
  gateway = await startTestGateway();
  const timeouts = GENEROUS_TIMEOUTS;
  const channels = [
    gateway.admin('PUT', '/admin/v1/channels/fake-gemini', {
      type: 'gemini',
      baseUrl: geminiUpstream.origin,
      apiKey: GEMINI_KEY,
      models: ['gemini-test'],
      modelMap: { 'gemini-test': 'gemini-upstream' },
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/fake-openai-for-gemini', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      models: ['gpt-via-gemini'],
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/fake-anthropic-for-chat', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: 'sk-ant',
      models: ['claude-via-chat'],
      timeouts,
    }),
  ];
  for (const result of await Promise.all(channels)) expect(result.status).toBe(200);
  ({ key } = await gateway.createAccountWithKey());
  // Jest's VM context hides Node's undici dispatcher from the SDK's default transport: hand it fetch itself.
  genai = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, fetch: (input, init) => fetch(input, init) },
  });
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await geminiUpstream?.close();
  await openAiUpstream?.close();
  await anthropicUpstream?.close();
});

describe.each([
  ['a gemini channel', 'gemini-test'],
  ['an openai channel through translation', 'gpt-via-gemini'],
  ['an anthropic channel through translation', 'claude-via-chat'],
])('the @google/genai SDK on %s', (_name, model) => {
  test('generates content', async () => {
    const response = await genai.models.generateContent({ model, contents: 'Hello Gemini' });

    expect(response.text).toBe('Echo: Hello Gemini');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
  });

  test('streams content', async () => {
    const texts: string[] = [];
    for await (const chunk of await genai.models.generateContentStream({ model, contents: 'Stream for me' }))
      texts.push(chunk.text ?? '');

    expect(texts.join('')).toBe('Echo: Stream for me');
  });

  test('calls a function', async () => {
    const response = await genai.models.generateContent({
      model,
      contents: 'Weather in Paris?',
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
              },
            ],
          },
        ],
      },
    });

    expect(response.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
  });
});

describe('Gemini-style paths', () => {
  test('the model list is in Google format', async () => {
    const names: string[] = [];
    for await (const model of await genai.models.list()) names.push(model.name ?? '');

    expect(names).toContain('models/gemini-test');
  });

  test('a key in ?key= is accepted', async () => {
    const result = await gateway.request('POST', `/v1beta/models/gemini-test:generateContent?key=${key}`, {
      body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });

    expect(result.status).toBe(200);
    expect(result.body.candidates[0].content.parts[0].text).toBe('Echo: hi');
  });

  test('errors come in Google envelope', async () => {
    const result = await gateway.request('POST', '/v1beta/models/gemini-test:generateContent', {
      headers: { 'x-goog-api-key': 'sk-wrong' },
      body: { contents: [] },
    });

    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: { code: 401, message: expect.any(String), status: 'UNAUTHENTICATED' } });
  });

  test('the gemini upstream gets its key, its model name and a schema without the keywords it rejects', async () => {
    await openai.chat.completions.create({
      model: 'gemini-test',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weatherTool],
    });
    const sent = (await geminiUpstream.receivedRequests()).at(-1)!;

    expect(sent.path).toBe('/v1beta/models/gemini-upstream:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent.body.tools[0].functionDeclarations[0].parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
  });
});

describe.each([
  ['a gemini channel', 'gemini-test'],
  ['an anthropic channel', 'claude-via-chat'],
])('the openai SDK on %s', (_name, model) => {
  test('completes a chat', async () => {
    const completion = await openai.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });

    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Echo: Hello' },
    });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(3);
  });

  test('streams a chat with usage last', async () => {
    const stream = await openai.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Stream me' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }

    expect(text).toBe('Echo: Stream me');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  test('streams a tool call whose arguments parse', async () => {
    const stream = await openai.chat.completions.create({
      model,
      stream: true,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    let name = '';
    let args = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? '';
      args += call?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }

    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toMatchObject({ city: 'Paris' });
    expect(finish).toBe('tool_calls');
  });
});
