import OpenAI from 'openai';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' }, { wire: 'openai-responses' });
  gateway = await startTestGateway();
  const native = await gateway.admin('PUT', '/admin/v1/channels/fake-native', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['gpt-native'],
    modelMap: { 'gpt-native': 'upstream-native' },
  });
  // Same upstream type, but only chat allowed: the gateway translates Responses to chat for it.
  const chatOnly = await gateway.admin('PUT', '/admin/v1/channels/fake-chat-only', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['gpt-chat'],
    endpoints: ['chat'],
  });
  expect([native.status, chatOnly.status]).toEqual([200, 200]);
  await addOfflineDemoChannel(gateway);
  ({ key } = await gateway.createAccountWithKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('POST /v1/responses on a native channel', () => {
  it('relays a whole response under the public model id', async () => {
    const response = await client.responses.create({ model: 'gpt-native', input: 'hello native' });

    expect(response.model).toBe('gpt-native');
    expect(response.output_text).toBe('Native echo: hello native');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 6 });
    // The gateway keeps the conversation: the upstream gets all of it, keeps nothing, and hands back reasoning.
    expect((await upstream.receivedRequests()).at(-1)).toMatchObject({
      path: '/v1/responses',
      body: {
        model: 'upstream-native',
        input: [{ type: 'message', role: 'user', content: 'hello native' }],
        store: false,
        include: ['reasoning.encrypted_content'],
      },
    });
  });

  it('passes the typed event stream through, model rewritten', async () => {
    const stream = client.responses.stream({ model: 'gpt-native', input: 'stream me' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();

    expect(final.output_text).toBe('Native echo: stream me');
    expect(final.model).toBe('gpt-native');
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
  });
});

describe('POST /v1/responses translated to chat', () => {
  it('answers a whole response from a chat-only channel, instructions as the system message', async () => {
    const response = await client.responses.create({
      model: 'gpt-chat',
      instructions: 'Be brief.',
      input: 'hi there',
      max_output_tokens: 50,
      temperature: 0.5,
    });

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-chat' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe('Echo: hi there');
    expect(response.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 7,
      total_tokens: 18,
      input_tokens_details: { cached_tokens: 3 },
    });
    expect((await upstream.receivedRequests()).at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      body: {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi there' },
        ],
        max_tokens: 50,
        temperature: 0.5,
      },
    });
  });

  it('streams typed events from a chat stream; the SDK assembles the final text', async () => {
    const stream = client.responses.stream({ model: 'gpt-chat', input: 'stream this please' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();

    expect(final.output_text).toBe('Echo: stream this please');
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final.usage?.total_tokens).toBe(18);
  });

  it('turns a chat tool call into a function_call item, and a function_call_output back into a tool message', async () => {
    const first = await client.responses.create({
      model: 'gpt-chat',
      input: 'weather in Paris?',
      tools: [weatherTool],
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      call_id: 'call_fake_1',
      arguments: '{"city":"Paris","unit":"celsius"}',
      status: 'completed',
    });

    const second = await client.responses.create({
      model: 'gpt-chat',
      tools: [weatherTool],
      input: [
        { role: 'user', content: 'weather in Paris?' },
        ...first.output.filter((item) => item.type === 'function_call'),
        { type: 'function_call_output', call_id: 'call_fake_1', output: '21 C' },
      ],
    });
    expect(second.output_text).toBe('The tool said: 21 C');
    expect((await upstream.receivedRequests()).at(-1)!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_fake_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_fake_1', content: '21 C' },
    ]);
    expect((await upstream.receivedRequests()).at(-1)!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: weatherTool.parameters,
          strict: false,
        },
      },
    ]);
  });

  it('streams function call arguments as deltas', async () => {
    const stream = client.responses.stream({ model: 'gpt-chat', input: 'weather?', tools: [weatherTool] });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();

    expect(deltas.join('')).toBe('{"city":"Paris","unit":"celsius"}');
    expect(final.output[0]).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      arguments: '{"city":"Paris","unit":"celsius"}',
    });
  });

  it('ends a stream that fails mid-way with an error event the SDK raises', async () => {
    await upstream.inject({ kind: 'cut-mid-stream', afterEvents: 3 });
    const stream = client.responses.stream({ model: 'gpt-chat', input: 'this will be cut short' });

    await expect(stream.finalResponse()).rejects.toThrow();
  });
});

describe('POST /v1/responses on the demo channel', () => {
  it('answers whole and streamed', async () => {
    const whole = await client.responses.create({
      model: 'demo-1',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello demo' }] }],
    });
    expect(whole.output_text).toContain('You said: "hello demo"');

    const stream = client.responses.stream({ model: 'demo-1', input: 'hello stream' });
    const final = await stream.finalResponse();
    expect(final.output_text).toContain('You said: "hello stream"');
    expect(final.status).toBe('completed');
  });
});

describe('POST /v1/responses errors', () => {
  it('answers a 400 naming previous_response_id for an id the gateway never issued', async () => {
    const failure = await client.responses
      .create({ model: 'demo-1', input: 'x', previous_response_id: 'resp_123' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });

  it('leaves a hosted tool out on a chat-only channel, and answers', async () => {
    const result = await gateway.request('POST', '/v1/responses', {
      key,
      body: { model: 'gpt-chat', input: 'x', tools: [{ type: 'web_search' }] },
    });

    expect(result.status).toBe(200);
    expect((await upstream.receivedRequests()).at(-1)!.body).not.toHaveProperty('tools');
  });

  it('answers a 400 naming tool_choice when it forces a hosted tool on a chat-only channel', async () => {
    const result = await gateway.request('POST', '/v1/responses', {
      key,
      body: { model: 'gpt-chat', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ param: 'tool_choice' });
  });

  it.each([
    ['temperature 2.5', { temperature: 2.5 }, 'temperature'],
    ['top_p 1.5', { top_p: 1.5 }, 'top_p'],
    ['max_output_tokens 0', { max_output_tokens: 0 }, 'max_output_tokens'],
  ])('rejects %s with a 400 naming the field', async (_name, body, param) => {
    const result = await gateway.request('POST', '/v1/responses', {
      key,
      body: { model: 'demo-1', input: 'x', ...body },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ param });
  });
});
