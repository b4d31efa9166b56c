import OpenAI from 'openai';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/** Tight enough for the timeout test to finish quickly, loose enough that a loaded host answers in time. */
const FIRST_BYTE_MS = 4_000;

const UPSTREAM_KEY = 'sk-upstream-secret-value-0123456789';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let accountId: string;

const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

const usageRecords = async (): Promise<any[]> =>
  (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body.data;

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  const channel = await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_KEY,
    models: ['gpt-test', 'gpt-stall'],
    modelMap: { 'gpt-test': 'upstream-gpt' },
    timeouts: { firstByteMs: FIRST_BYTE_MS, idleMs: 400 },
  });
  expect(channel.status).toBe(200);
  await addOfflineDemoChannel(gateway);
  const { key, account } = await gateway.createAccountWithKey();
  accountId = account.id;
  client = sdk(key);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const lastReceived = async () => (await upstream.receivedRequests()).at(-1)!;

describe('POST /v1/chat/completions, non-streaming', () => {
  it('relays a completion under the public model id with usage and fingerprint', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hello there' }],
    });

    expect(completion.model).toBe('gpt-test');
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Echo: hello there' },
    });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    expect(completion.system_fingerprint).toBe('fp_fake');
  });

  it('sends the upstream its model name and key, and passes unknown fields through without adding defaults', async () => {
    await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      parallel_tool_calls: false,
      metadata: { team: 'a' },
    });

    const sent = await lastReceived();
    expect(sent.body.model).toBe('upstream-gpt');
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body.parallel_tool_calls).toBe(false);
    expect(sent.body.metadata).toEqual({ team: 'a' });
    expect(sent.body).not.toHaveProperty('temperature');
  });

  it('carries multimodal content parts to the upstream unchanged', async () => {
    const content: OpenAI.Chat.ChatCompletionContentPart[] = [
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
    ];

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content }],
    });

    expect((await lastReceived()).body.messages[0].content).toEqual(content);
    expect(completion.choices[0]!.message.content).toBe('Echo: what is this? [image_url] [input_audio] [file]');
  });

  it('completes a tool round trip', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const first = await client.chat.completions.create({
      model: 'gpt-test',
      tools,
      messages: [{ role: 'user', content: 'weather in Paris?' }],
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Paris","unit":"celsius"}',
    });

    const second = await client.chat.completions.create({
      model: 'gpt-test',
      tools,
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '21 degrees' },
      ],
    });

    expect(second.choices[0]!.message.content).toBe('The tool said: 21 degrees');
    expect((await lastReceived()).body.messages[1].tool_calls[0].id).toBe('call_fake_1');
  });
});

describe('POST /v1/chat/completions, streaming', () => {
  it('streams the chunks and hides usage from a client that did not ask, while asking the upstream for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Echo: one two three');
    expect(chunks.every((chunk) => chunk.model === 'gpt-test')).toBe(true);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect((await lastReceived()).body.stream_options).toEqual({ include_usage: true });
  });

  it('ends with a usage chunk with empty choices when the client asks for usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count me' }],
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('delivers a tool call whose arguments arrive over many chunks, in order', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      messages: [{ role: 'user', content: 'weather?' }],
    });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      name += delta?.tool_calls?.[0]?.function?.name ?? '';
      args += delta?.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }

    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(finish).toBe('tool_calls');
  });

  it('sends the raw SSE framing: data lines, then [DONE]', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await response.text();

    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(text.startsWith('data: {')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('POST /v1/chat/completions, bad input', () => {
  const base = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };
  const cases: [string, Record<string, unknown>, string][] = [
    ['temperature 2.5', { temperature: 2.5 }, 'temperature'],
    ['temperature -0.1', { temperature: -0.1 }, 'temperature'],
    ['top_p 1.5', { top_p: 1.5 }, 'top_p'],
    ['n 0', { n: 0 }, 'n'],
    ['presence_penalty 3', { presence_penalty: 3 }, 'presence_penalty'],
    ['presence_penalty -3', { presence_penalty: -3 }, 'presence_penalty'],
    ['frequency_penalty 3', { frequency_penalty: 3 }, 'frequency_penalty'],
    ['frequency_penalty -3', { frequency_penalty: -3 }, 'frequency_penalty'],
    ['a bad role', { messages: [{ role: 'robot', content: 'hi' }] }, 'messages[0].role'],
    [
      'a bad content part',
      { messages: [{ role: 'user', content: [{ type: 'hologram' }] }] },
      'messages[0].content[0].type',
    ],
    [
      'a bad image detail',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x', detail: 'max' } }] }] },
      'messages[0].content[0].image_url.detail',
    ],
    ['stream as a string', { stream: 'yes' }, 'stream'],
    ['a bad reasoning effort', { reasoning_effort: 'extreme' }, 'reasoning_effort'],
    ['a bad tool choice', { tool_choice: 'sometimes' }, 'tool_choice'],
    ['a bad response format', { response_format: { type: 'yaml' } }, 'response_format.type'],
    ['a bad modality', { modalities: ['smell'] }, 'modalities[0]'],
  ];

  it.each(cases)('refuses %s with a 400 naming the field', async (_name, override, param) => {
    const error = await client.chat.completions
      .create({ ...base, ...override } as never)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_value');
  });

  it('refuses a missing messages field as missing_required', async () => {
    const error = (await client.chat.completions
      .create({ model: 'gpt-test' } as never)
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;

    expect(error.status).toBe(400);
    expect(error.code).toBe('missing_required');
    expect(error.param).toBe('messages');
  });

  it('refuses a body that is not JSON with invalid_json', async () => {
    const response = await gateway.request('POST', '/v1/chat/completions', { key: client.apiKey!, body: '{"model":' });

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_json');
  });

  it('answers 404 model_not_found for a model the key may not use, alike for unknown models', async () => {
    const { key } = await gateway.createAccountWithKey({ models: ['demo-1'] });
    const narrow = sdk(key);

    const forbidden = (await narrow.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.NotFoundError>;
    const unknown = (await narrow.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.NotFoundError>;

    expect(forbidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect(forbidden.code).toBe('model_not_found');
    expect(unknown.code).toBe('model_not_found');
    expect(unknown.message.replace('no-such-model', 'M')).toBe(forbidden.message.replace('gpt-test', 'M'));
  });

  it('does not call the upstream for a refused request', async () => {
    const before = (await upstream.receivedRequests()).length;
    await client.chat.completions.create({ ...base, temperature: 9 } as never).catch(() => undefined);

    expect((await upstream.receivedRequests()).length).toBe(before);
  });
});

describe('POST /v1/chat/completions, upstream failures', () => {
  const ask = (stream = false) =>
    client.chat.completions.create({
      model: 'gpt-test',
      stream,
      messages: [{ role: 'user', content: 'hi' }],
    } as never) as Promise<any>;

  it('relays an upstream 400 with its status and message', async () => {
    await upstream.inject({
      kind: 'status',
      status: 400,
      body: {
        error: {
          message: 'context too long',
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    });

    const error = (await ask().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain('context too long');
    expect(error.code).toBe('context_length_exceeded');
  });

  it('turns an upstream 500 into a 502 upstream_error', async () => {
    await upstream.inject({ kind: 'status', status: 500 });

    const error = (await ask().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.type).toBe('upstream_error');
  });

  it('turns a rejection of the channel key into a 502 that does not blame the client key', async () => {
    await upstream.inject({
      kind: 'status',
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-upst***' } },
    });

    const error = (await ask().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error.status).toBe(502);
    expect(error.message).not.toContain('sk-upst');
  });

  it('turns a reset connection into a 502', async () => {
    await upstream.inject({ kind: 'reset' });

    const error = (await ask().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
  });

  it('answers 504 upstream_timeout when the upstream does not answer in time', async () => {
    await upstream.inject({ kind: 'delay', ms: FIRST_BYTE_MS + 5_000 });

    const error = (await ask().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;

    expect(error.status).toBe(504);
    expect(error.code).toBe('upstream_timeout');
  });

  const collectError = async (stream: AsyncIterable<unknown>) => {
    let received = 0;
    try {
      for await (const _chunk of stream) received += 1;
    } catch (error) {
      return { received, error: error as InstanceType<typeof OpenAI.APIError> };
    }
    return { received, error: undefined };
  };

  it('ends a stream cut mid-way with an error event after the chunks already sent', async () => {
    await upstream.inject({ kind: 'cut-mid-stream', afterEvents: 3 });

    const { received, error } = await collectError(await ask(true));

    expect(received).toBe(3);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error!.message).toMatch(/upstream/i);
  });

  it('ends a stream with a malformed event with an error event', async () => {
    await upstream.inject({ kind: 'malformed-sse' });

    const { error } = await collectError(await ask(true));

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error!.message).toMatch(/could not read/);
  });

  it('ends a stream that stalls with a timeout error event instead of hanging', async () => {
    await upstream.inject({ kind: 'stall-mid-stream', afterEvents: 2 });

    const { received, error } = await collectError(await ask(true));

    expect(received).toBe(2);
    expect(error!.message).toMatch(/timed out/);
  });

  it('keeps a slow but alive stream open', async () => {
    await upstream.inject({ kind: 'slow-stream', gapMs: 250 });

    const { error } = await collectError(await ask(true));

    expect(error).toBeUndefined();
  });
});

describe('client disconnects and usage records', () => {
  it('closes the upstream request when the client goes away mid-stream, and records the aborted request', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    accountId = account.id;
    await upstream.inject({ kind: 'slow-stream', gapMs: 300 });
    const abortedBefore = await upstream.abortedCount();
    const controller = new AbortController();
    const stream = await sdk(key).chat.completions.create(
      { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'a long answer please' }] },
      { signal: controller.signal },
    );

    for await (const _chunk of stream) {
      controller.abort();
      break;
    }

    await waitFor(async () => (await upstream.abortedCount()) > abortedBefore);
    await waitFor(async () => (await usageRecords()).length === 1);
    const [record] = await usageRecords();
    expect(record).toMatchObject({
      status: 'client_aborted',
      stream: true,
      model: 'gpt-test',
      channelId: 'fake-openai',
      endpoint: 'chat',
      usageSource: 'estimate',
    });
    expect(record!.promptTokens).toBeGreaterThan(0);
  });

  it('records a completed request with the upstream counts', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    accountId = account.id;

    await sdk(key).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });

    await waitFor(async () => (await usageRecords()).length === 1);
    const [record] = await usageRecords();
    expect(record).toMatchObject({
      status: 'success',
      httpStatus: 200,
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
      cachedTokens: 3,
      usageSource: 'upstream',
      attempts: 1,
    });
  });

  it('records a failed request with its status', async () => {
    const { key, account } = await gateway.createAccountWithKey();
    accountId = account.id;
    await upstream.inject({ kind: 'status', status: 503 });

    await sdk(key)
      .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .catch(() => undefined);

    await waitFor(async () => (await usageRecords()).length === 1);
    expect((await usageRecords())[0]).toMatchObject({ status: 'upstream_error', httpStatus: 502 });
  });
});

describe('the demo channel', () => {
  it('answers and streams word by word without any upstream', async () => {
    const completion = await client.chat.completions.create({
      model: 'demo-1',
      messages: [{ role: 'user', content: 'ping' }],
    });
    const stream = await client.chat.completions.create({
      model: 'demo-1',
      stream: true,
      messages: [{ role: 'user', content: 'ping' }],
    });
    const words: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) words.push(chunk.choices[0].delta.content);

    expect(completion.choices[0]!.message.content).toContain('You said: "ping"');
    expect(words.length).toBeGreaterThan(5);
    expect(words.join('')).toBe(completion.choices[0]!.message.content);
  });
});
