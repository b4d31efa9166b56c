import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BEDROCK_REQUEST_ID, bedrockExceptionFrame } from '../support/fake-upstream/bedrock-wire.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';
import { GENEROUS_TIMEOUTS } from '../support/channel-timeouts.js';

const UPSTREAM_MODEL = 'anthropic.claude-fake-v1:0';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUg==';

let restoreAwsEnvironment: () => void = () => undefined;

let upstream: FakeUpstream;
let gateway: TestGateway;
let accountId: string;
let openai: OpenAI;
let anthropic: Anthropic;

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

beforeAll(async () => {
  restoreAwsEnvironment = setFakeAwsCredentials('AKIDBEDROCKTEST');
  upstream = await startUpstream({ wire: 'bedrock', upstreamModel: UPSTREAM_MODEL });
  gateway = await startTestGateway();
  const created = await gateway.admin('PUT', '/admin/v1/channels/fake-bedrock', {
    type: 'bedrock',
    baseUrl: upstream.origin,
    models: ['claude-on-bedrock'],
    modelMap: { 'claude-on-bedrock': UPSTREAM_MODEL },
    // Its stall test needs the idle limit tight.
    timeouts: { ...GENEROUS_TIMEOUTS, idleMs: 400 },
  });
  expect(created.status).toBe(200);
  const { key, account } = await gateway.createAccountWithKey();
  accountId = account.id;
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  restoreAwsEnvironment();
});

const lastSent = async () => (await upstream.receivedRequests()).at(-1)!;

const ask = (
  content: OpenAI.ChatCompletionUserMessageParam['content'],
  extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {},
) => openai.chat.completions.create({ model: 'claude-on-bedrock', messages: [{ role: 'user', content }], ...extra });

const askStreaming = (content: string, extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {}) =>
  openai.chat.completions.create({
    model: 'claude-on-bedrock',
    messages: [{ role: 'user', content }],
    stream: true,
    ...extra,
  });

const collect = async (stream: AsyncIterable<OpenAI.ChatCompletionChunk>) => {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error: error as InstanceType<typeof OpenAI.APIError> };
  }
  return { chunks, error: undefined };
};

const textOf = (chunks: readonly OpenAI.ChatCompletionChunk[]) =>
  chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

describe('chat completions on a bedrock channel, with the openai SDK', () => {
  test('answers under the public model id with Bedrock usage, cached input included', async () => {
    const completion = await ask('Hello Bedrock', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello Bedrock' },
      ],
      temperature: 0.5,
    });

    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'claude-on-bedrock',
      id: `chatcmpl-${BEDROCK_REQUEST_ID}`,
    });
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Echo: Hello Bedrock' },
      finish_reason: 'stop',
    });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 14,
      completion_tokens: 7,
      total_tokens: 21,
      prompt_tokens_details: { cached_tokens: 3 },
    });
  });

  test('calls Converse with the upstream model id in the path, a SigV4 signature for bedrock, and the translated body', async () => {
    await ask('Hello Bedrock', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello Bedrock' },
      ],
      max_tokens: 64,
    });
    const sent = await lastSent();

    expect(sent.path).toBe(`/model/${encodeURIComponent(UPSTREAM_MODEL)}/converse`);
    // Signed for Bedrock with the gateway's own credentials (this process's, or those of a gateway run apart).
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=[^/\s]+\/\d{8}\/[a-z]{2}(-[a-z]+)+-\d\/bedrock\/aws4_request,/,
    );
    expect(sent.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hello Bedrock' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 64 },
    });
  });

  test('streams the answer word by word and ends with a usage chunk when asked', async () => {
    const { chunks, error } = await collect(
      await askStreaming('Stream this please', { stream_options: { include_usage: true } }),
    );

    expect(error).toBeUndefined();
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(textOf(chunks)).toBe('Echo: Stream this please');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 14, completion_tokens: 7, total_tokens: 21 },
    });
    expect((await lastSent()).path).toBe(`/model/${encodeURIComponent(UPSTREAM_MODEL)}/converse-stream`);
  });

  test('leaves the usage chunk out for a client that did not ask for it', async () => {
    const { chunks } = await collect(await askStreaming('No usage please'));

    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  test('calls a tool, then answers with its result', async () => {
    const first = await ask('Weather in Paris?', { tools: [weatherTool], tool_choice: 'required' });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;

    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'tooluse_fake_1', type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect((await lastSent()).body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'The weather in a city',
            inputSchema: { json: weatherTool.function.parameters },
          },
        },
      ],
      toolChoice: { any: {} },
    });

    const second = await openai.chat.completions.create({
      model: 'claude-on-bedrock',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 degrees' },
      ],
    });

    expect(second.choices[0]!.message.content).toBe('The tool said: sunny, 21 degrees');
    expect((await lastSent()).body.messages[1].content).toEqual([
      { toolUse: { toolUseId: 'tooluse_fake_1', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } } },
    ]);
    expect((await lastSent()).body.messages[2].content).toEqual([
      { toolResult: { toolUseId: 'tooluse_fake_1', content: [{ text: 'sunny, 21 degrees' }] } },
    ]);
  });

  test('streams a tool call whose arguments arrive in pieces', async () => {
    const { chunks } = await collect(await askStreaming('Weather?', { tools: [weatherTool] }));
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);

    expect(deltas[0]).toMatchObject({
      index: 0,
      id: 'tooluse_fake_1',
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(JSON.parse(deltas.map((delta) => delta.function?.arguments ?? '').join(''))).toEqual({
      city: 'Paris',
      unit: 'celsius',
    });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  test('sends an image given as a data URL inline, as bytes', async () => {
    const completion = await ask([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ]);

    expect(completion.choices[0]!.message.content).toBe('Echo: What is this? [png image]');
    expect((await lastSent()).body.messages[0].content[1]).toEqual({
      image: { format: 'png', source: { bytes: PNG_BASE64 } },
    });
  });

  test('refuses an image by link with a 400 naming the part, without calling Bedrock', async () => {
    const before = (await upstream.receivedRequests()).length;
    const error = (await ask([{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]).catch(
      (caught: unknown) => caught,
    )) as InstanceType<typeof OpenAI.BadRequestError>;

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe('invalid_value');
    expect(error.param).toBe('messages[0].content[0].image_url.url');
    expect((await upstream.receivedRequests()).length).toBe(before);
  });

  test.each([
    ['max_tokens', 'length', { max_tokens: 2 }, 'Echo: one'],
    ['stop_sequence', 'stop', { stop: [' three'] }, 'Echo: one two'],
  ])('maps a %s stop to finish_reason %s', async (_reason, finishReason, extra, text) => {
    const completion = await ask('one two three four', extra);

    expect(completion.choices[0]).toMatchObject({ finish_reason: finishReason, message: { content: text } });
  });

  test('maps a streamed max_tokens stop to finish_reason length', async () => {
    const { chunks } = await collect(await askStreaming('one two three four', { max_tokens: 2 }));

    expect(textOf(chunks)).toBe('Echo: one');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length');
  });
});

describe('the Messages API on a bedrock channel, with the Anthropic SDK', () => {
  test('creates a message', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-on-bedrock',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hello there' }],
    });

    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-on-bedrock',
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Echo: Hello there' }],
    });
    expect(message.usage.output_tokens).toBe(7);
  });

  test('streams a message', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-on-bedrock',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Stream this please' }],
    });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();

    expect(texts.join('')).toBe('Echo: Stream this please');
    expect(message).toMatchObject({
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Echo: Stream this please' }],
    });
    expect(message.usage.output_tokens).toBe(7);
  });

  test('streams a tool call', async () => {
    const message = await anthropic.messages
      .stream({
        model: 'claude-on-bedrock',
        max_tokens: 100,
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
        messages: [{ role: 'user', content: 'Weather?' }],
      })
      .finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris', unit: 'celsius' },
    });
  });
});

describe('the Responses API on a bedrock channel, with the openai SDK', () => {
  test('creates a response through chat', async () => {
    const response = await openai.responses.create({ model: 'claude-on-bedrock', input: 'Hello responses' });

    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Echo: Hello responses');
  });
});

describe('usage records of bedrock requests', () => {
  test('hold the channel and the tokens Bedrock reported', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'claude-on-bedrock',
      messages: [{ role: 'user', content: 'count me' }],
    });
    await collect(
      await client.chat.completions.create({
        model: 'claude-on-bedrock',
        messages: [{ role: 'user', content: 'count me too' }],
        stream: true,
      }),
    );

    let records: any[] = [];
    await waitFor(async () => {
      records = (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data;
      return records.length >= 2;
    });

    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record).toMatchObject({
        channelId: 'fake-bedrock',
        model: 'claude-on-bedrock',
        status: 'success',
        promptTokens: 14,
        completionTokens: 7,
        totalTokens: 21,
        usageSource: 'upstream',
      });
    }
    expect(records.map((record) => record.stream).sort()).toEqual([false, true]);
  });
});

describe('bedrock failures', () => {
  test('a ThrottlingException reaches the client as a 429', async () => {
    await upstream.inject({
      kind: 'status',
      status: 429,
      headers: { 'x-amzn-errortype': 'ThrottlingException' },
      body: { message: 'Too many requests, please wait before trying again.' },
    });

    const error = (await ask('hi').catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.RateLimitError>;

    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
  });

  test("a ValidationException reaches the client as a 400 with Bedrock's message", async () => {
    await upstream.inject({
      kind: 'status',
      status: 400,
      headers: { 'x-amzn-errortype': 'ValidationException' },
      body: { message: 'A conversation must start with a user message.' },
    });

    const error = (await ask('hi').catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain('A conversation must start with a user message.');
  });

  test('a streamed ThrottlingException before the first event is a 429 too', async () => {
    await upstream.inject({
      kind: 'status',
      status: 429,
      headers: { 'x-amzn-errortype': 'ThrottlingException' },
      body: { message: 'slow down' },
    });

    const error = (await askStreaming('hi').catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error.status).toBe(429);
  });

  test('an exception in the middle of the stream ends it with an error event, after the chunks already sent', async () => {
    await upstream.inject({
      kind: 'error-mid-stream',
      afterEvents: 3,
      event: bedrockExceptionFrame('modelStreamErrorException', 'The model stream failed.'),
    });

    const { chunks, error } = await collect(await askStreaming('one two three four'));

    expect(textOf(chunks)).toBe('Echo: one');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error!.message).toContain('The model stream failed.');
  });

  test('a stream that stalls ends with a timeout error event instead of hanging', async () => {
    await upstream.inject({ kind: 'stall-mid-stream', afterEvents: 2 });

    const { chunks, error } = await collect(await askStreaming('one two three four'));

    expect(chunks).toHaveLength(2);
    expect(error!.message).toMatch(/timed out/);
  });

  test('a stream cut mid-way ends with an error event', async () => {
    await upstream.inject({ kind: 'cut-mid-stream', afterEvents: 2 });

    const { error } = await collect(await askStreaming('one two three four'));

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error!.message).toMatch(/upstream/i);
  });

  test('a frame that fails its checksum ends the stream with an error event', async () => {
    await upstream.inject({ kind: 'malformed-sse' });

    const { error } = await collect(await askStreaming('one two three four'));

    expect(error!.message).toMatch(/could not read/);
  });

  test('an unreachable Bedrock endpoint is a 502', async () => {
    await upstream.inject({ kind: 'reset' });

    const error = (await ask('hi').catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
  });

  test('the failed requests are recorded against the bedrock channel', async () => {
    const failedOnBedrock = (records: any[]) =>
      records.filter((record) => record.channelId === 'fake-bedrock' && record.status !== 'success');
    let records: any[] = [];
    await waitFor(async () => {
      records = (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body.data;
      return failedOnBedrock(records).length > 0;
    });

    expect(failedOnBedrock(records).length).toBeGreaterThan(0);
  });
});
