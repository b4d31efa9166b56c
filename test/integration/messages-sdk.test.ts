import Anthropic from '@anthropic-ai/sdk';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { GENEROUS_TIMEOUTS } from '../support/channel-timeouts.js';

const UPSTREAM_KEY = 'sk-ant-upstream-secret-0123456789';

let anthropicUpstream: FakeUpstream;
let openAiUpstream: FakeUpstream;
let gateway: TestGateway;
let key: string;
let client: Anthropic;

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string' } },
    required: ['city'],
  },
};

beforeAll(async () => {
  anthropicUpstream = await startUpstream({ wire: 'anthropic' });
  openAiUpstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  const channels = [
    gateway.admin('PUT', '/admin/v1/channels/fake-anthropic', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: UPSTREAM_KEY,
      models: ['claude-test'],
      modelMap: { 'claude-test': 'claude-upstream' },
      timeouts: GENEROUS_TIMEOUTS,
    }),
    gateway.admin('PUT', '/admin/v1/channels/fake-openai-for-messages', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      apiKey: 'sk-openai-upstream',
      models: ['gpt-via-messages'],
      timeouts: GENEROUS_TIMEOUTS,
    }),
    gateway.admin('PUT', '/admin/v1/channels/chat-only', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      models: ['chat-only-model'],
      endpoints: ['chat'],
    }),
  ];
  for (const result of await Promise.all(channels)) expect(result.status).toBe(200);
  ({ key } = await gateway.createAccountWithKey());
  client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await anthropicUpstream?.close();
  await openAiUpstream?.close();
});

describe.each([
  ['a native anthropic channel', 'claude-test'],
  ['an openai channel through translation', 'gpt-via-messages'],
])('the Anthropic SDK on %s', (_name, model) => {
  test('creates a message', async () => {
    const message = await client.messages.create({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hello there' }],
    });

    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model,
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Echo: Hello there' }],
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage.output_tokens).toBe(7);
  });

  test('streams a message with the SDK helper', async () => {
    const stream = client.messages.stream({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Stream this please' }],
    });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();

    expect(texts.join('')).toBe('Echo: Stream this please');
    expect(texts.length).toBeGreaterThan(1);
    expect(message).toMatchObject({
      model,
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Echo: Stream this please' }],
    });
    expect(message.usage.output_tokens).toBe(7);
  });

  test('calls a tool, then answers with its result', async () => {
    const first = await client.messages.create({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } });

    const second = await client.messages.create({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: (call as Anthropic.ToolUseBlock).id, content: 'sunny, 21 degrees' },
          ],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: sunny, 21 degrees' }]);
  });

  test('streams a tool call whose input arrives in pieces', async () => {
    const stream = client.messages.stream({
      model,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    const message = await stream.finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris', unit: 'celsius' },
    });
  });

  test('counts tokens', async () => {
    const counted = await client.messages.countTokens({
      model,
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });

    expect(counted.input_tokens).toBeGreaterThan(0);
  });
});

describe('the native anthropic channel', () => {
  test('gets the upstream model name, the channel key and the API version the SDK pinned', async () => {
    await client.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const sent = (await anthropicUpstream.receivedRequests()).at(-1)!;

    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY);
    // The SDK's own version header (its answers are parsed in that version's shapes) is forwarded.
    expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent.body.model).toBe('claude-upstream');
  });

  test('answers count_tokens with the upstream count', async () => {
    const counted = await client.messages.countTokens({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'hi' }],
    });

    expect(counted.input_tokens).toBe(42);
  });

  test('relays thinking blocks and their signature when streaming', async () => {
    const message = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'think' }],
      })
      .finalMessage();

    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: 'sig_fake' });
  });

  test('a mid-stream cut reaches the SDK as an error, not a silent end', async () => {
    await anthropicUpstream.inject({ kind: 'cut-mid-stream', afterEvents: 3 });
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'one two three four' }],
    });

    await expect(stream.finalMessage()).rejects.toThrow();
  });
});

describe('refusals in the Anthropic envelope', () => {
  test('a model whose channels do not serve messages is a 400 naming the model and the interface', async () => {
    const result = await gateway.request('POST', '/v1/messages', {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: { model: 'chat-only-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    });

    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/chat-only-model.*Messages/) },
    });
  });

  test('a missing max_tokens is a 400 invalid_request_error', async () => {
    const result = await gateway.request('POST', '/v1/messages', {
      headers: { 'x-api-key': key },
      body: { model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] },
    });

    expect(result.status).toBe(400);
    expect(result.body.type).toBe('error');
    expect(result.body.error.type).toBe('invalid_request_error');
  });

  test('a wrong key is a 401 authentication_error', async () => {
    const bad = new Anthropic({ apiKey: 'sk-wrong', baseURL: gateway.url, maxRetries: 0 });

    await expect(
      bad.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
  });

  test('an upstream rate limit before the first byte is relayed as a 429 rate_limit_error', async () => {
    await anthropicUpstream.inject({
      kind: 'status',
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    });

    await expect(
      client.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 429,
    });
  });
});
