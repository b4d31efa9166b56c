import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Stored Responses (DESIGN §12): the gateway keeps each response and rebuilds the conversation a
 * `previous_response_id` continues, so every upstream receives the whole conversation on every turn,
 * on native and translated channels alike and across failover. Driven with the official `openai` SDK.
 */

let openaiUpstream: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let geminiUpstream: FakeUpstream;
let pairUpstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let otherClient: OpenAI;
let myKey: string;
let otherKey: string;

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

beforeAll(async () => {
  [openaiUpstream, anthropicUpstream, geminiUpstream, pairUpstream] = await Promise.all([
    startUpstream({ wire: 'openai' }, { wire: 'openai-responses' }),
    startUpstream({ wire: 'anthropic' }),
    startUpstream({ wire: 'gemini', upstreamModel: 'gemini-upstream' }),
    startUpstream({ wire: 'openai' }, { wire: 'openai-responses' }),
  ]);
  gateway = await startTestGateway();
  const channels = await Promise.all([
    gateway.admin('PUT', '/admin/v1/channels/kept-openai', {
      type: 'openai',
      baseUrl: openaiUpstream.baseUrl,
      models: ['kept-openai'],
    }),
    gateway.admin('PUT', '/admin/v1/channels/kept-anthropic', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: 'upstream-anthropic-key',
      models: ['kept-anthropic', 'kept-pair'],
    }),
    gateway.admin('PUT', '/admin/v1/channels/kept-gemini', {
      type: 'gemini',
      baseUrl: geminiUpstream.origin,
      apiKey: 'upstream-gemini-key',
      models: ['kept-gemini'],
      modelMap: { 'kept-gemini': 'gemini-upstream' },
    }),
    // kept-pair: first on a native OpenAI channel, the anthropic one behind it.
    gateway.admin('PUT', '/admin/v1/channels/kept-pair-first', {
      type: 'openai',
      baseUrl: pairUpstream.baseUrl,
      models: ['kept-pair'],
      priority: 10,
    }),
  ]);
  expect(channels.map((result) => result.status)).toEqual([200, 200, 200, 200]);
  // A model that thinks: its reasoning effort reaches the channel.
  expect((await gateway.admin('PUT', '/admin/v1/models/kept-anthropic', { reasoning: true })).status).toBe(200);
  const [mine, theirs] = await Promise.all([gateway.createAccountWithKey(), gateway.createAccountWithKey()]);
  myKey = mine.key;
  otherKey = theirs.key;
  client = new OpenAI({ apiKey: mine.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  otherClient = new OpenAI({ apiKey: theirs.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(
    [openaiUpstream, anthropicUpstream, geminiUpstream, pairUpstream].map((upstream) => upstream?.close()),
  );
});

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join('');

/** The texts of the conversation an upstream received last, turn by turn, in each wire's own shape. */
const conversationSent = {
  openai: (body: any): string[] =>
    body.input.filter((item: any) => item.type === 'message').map((item: any) => textOf(item.content)),
  anthropic: (body: any): string[] => body.messages.map((message: any) => textOf(message.content)),
  gemini: (body: any): string[] => body.contents.map((content: any) => textOf(content.parts)),
};

const lastBody = async (upstream: FakeUpstream) => (await upstream.receivedRequests()).at(-1)!.body;

describe.each([
  ['openai', 'kept-openai', () => openaiUpstream, 'Native echo: '],
  ['anthropic', 'kept-anthropic', () => anthropicUpstream, 'Echo: '],
  ['gemini', 'kept-gemini', () => geminiUpstream, 'Echo: '],
] as const)('three turns chained by id on an %s channel', (wire, model, upstreamOf, echo) => {
  it('sends the upstream the whole conversation on every turn, under ids the gateway minted', async () => {
    const questions = ['first question', 'second question', 'third question'];
    const ids: string[] = [];
    const seen: string[][] = [];
    let previous: string | undefined;
    for (const question of questions) {
      const response = await client.responses.create({ model, input: question, previous_response_id: previous });
      expect(response.output_text).toBe(`${echo}${question}`);
      seen.push(conversationSent[wire](await lastBody(upstreamOf())));
      ids.push(response.id);
      previous = response.id;
    }

    expect(seen).toEqual([
      ['first question'],
      ['first question', `${echo}first question`, 'second question'],
      ['first question', `${echo}first question`, 'second question', `${echo}second question`, 'third question'],
    ]);
    for (const id of ids) expect(id).toMatch(/^resp_[0-9A-Za-z]{40}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('continues a streamed turn once it has completed', async () => {
    const stream = client.responses.stream({ model, input: 'streamed question' });
    const first = await stream.finalResponse();

    const second = await client.responses.create({ model, input: 'and then?', previous_response_id: first.id });

    expect(second.previous_response_id).toBe(first.id);
    expect(conversationSent[wire](await lastBody(upstreamOf()))).toEqual([
      'streamed question',
      `${echo}streamed question`,
      'and then?',
    ]);
  });
});

describe('the native OpenAI channel', () => {
  it('asks for encrypted reasoning with store false, keeps it from the client, and sends it back on the next turn', async () => {
    const first = await client.responses.create({ model: 'kept-openai', input: 'think about it' });
    expect((await lastBody(openaiUpstream)) as unknown).toMatchObject({
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    expect(reasoning).toBeDefined();
    expect(reasoning).not.toHaveProperty('encrypted_content');
    expect(first.output.map((item) => item.id)).not.toContain('rs_fake');

    await client.responses.create({ model: 'kept-openai', input: 'go on', previous_response_id: first.id });

    const sent = await lastBody(openaiUpstream);
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input).toContainEqual(expect.objectContaining({ type: 'reasoning', encrypted_content: 'enc_fake_1' }));
    for (const item of sent.input) expect(item).not.toHaveProperty('id');
  });

  it('completes a tool loop chained by previous_response_id, as the Agents SDK runs one', async () => {
    const call = await client.responses.create({
      model: 'kept-openai',
      input: 'weather in Paris?',
      tools: [weatherTool],
    });
    const functionCall = call.output.find((item) => item.type === 'function_call');
    expect(functionCall).toMatchObject({ name: 'get_weather', call_id: 'call_fake_1' });

    const answer = await client.responses.create({
      model: 'kept-openai',
      tools: [weatherTool],
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: functionCall!.call_id, output: '21 C' }],
    });

    expect(answer.output_text).toBe('The tool said: 21 C');
    expect((await lastBody(openaiUpstream)).input.map((item: { type: string }) => item.type)).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
  });
});

describe('signed thinking on an anthropic channel', () => {
  it('goes back to the upstream on the next turn, exactly as signed', async () => {
    const first = await client.responses.create({
      model: 'kept-anthropic',
      input: 'a hard one',
      reasoning: { effort: 'low' },
      max_output_tokens: 4096,
    });

    await client.responses.create({
      model: 'kept-anthropic',
      input: 'next',
      reasoning: { effort: 'low' },
      max_output_tokens: 4096,
      previous_response_id: first.id,
    });

    const assistant = (await lastBody(anthropicUpstream)).messages[1];
    expect(assistant.role).toBe('assistant');
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: 'sig_fake' });
  });
});

describe('a chain whose channel fails over', () => {
  it('continues on the next channel with the whole conversation', async () => {
    const first = await client.responses.create({ model: 'kept-pair', input: 'before the outage' });
    expect(first.output_text).toBe('Native echo: before the outage');

    await pairUpstream.inject({ kind: 'status', status: 500 });
    const second = await client.responses.create({
      model: 'kept-pair',
      input: 'during the outage',
      previous_response_id: first.id,
    });

    expect(second.output_text).toBe('Echo: during the outage');
    expect(conversationSent.anthropic(await lastBody(anthropicUpstream))).toEqual([
      'before the outage',
      'Native echo: before the outage',
      'during the outage',
    ]);
  });
});

describe('retrieve, input items and delete', () => {
  const chainOfThree = async () => {
    const one = await client.responses.create({ model: 'kept-anthropic', input: 'one' });
    const two = await client.responses.create({ model: 'kept-anthropic', input: 'two', previous_response_id: one.id });
    return client.responses.create({ model: 'kept-anthropic', input: 'three', previous_response_id: two.id });
  };

  it('returns the stored response as it was returned', async () => {
    const created = await client.responses.create({ model: 'kept-openai', input: 'keep me', metadata: { a: 'b' } });

    const retrieved = await client.responses.retrieve(created.id);

    expect(retrieved).toEqual(created);
    expect(retrieved).toHaveProperty('store', true);
  });

  it('lists the whole conversation a response was made from, newest first, paged by item id', async () => {
    const third = await chainOfThree();

    const all: { id: string; content?: unknown }[] = [];
    for await (const item of client.responses.inputItems.list(third.id, { order: 'asc', limit: 2 })) {
      all.push(item as never);
    }
    expect(all.map((item) => textOf(item.content))).toEqual(['one', 'Echo: one', 'two', 'Echo: two', 'three']);
    expect(new Set(all.map((item) => item.id)).size).toBe(5);

    const page = await gateway.request('GET', `/v1/responses/${third.id}/input_items?limit=2`, {
      key: myKey,
    });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      object: 'list',
      first_id: all[4]!.id,
      last_id: all[3]!.id,
      has_more: true,
    });
    const next = await gateway.request('GET', `/v1/responses/${third.id}/input_items?limit=2&after=${all[3]!.id}`, {
      key: myKey,
    });
    expect(next.body.data.map((item: { id: string }) => item.id)).toEqual([all[2]!.id, all[1]!.id]);
  });

  it('deletes a response: then it is not found, and cannot be continued', async () => {
    const created = await client.responses.create({ model: 'kept-gemini', input: 'short-lived' });

    const deleted = await gateway.request('DELETE', `/v1/responses/${created.id}`, { key: myKey });

    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const again = await gateway.request('DELETE', `/v1/responses/${created.id}`, { key: myKey });
    expect(again.status).toBe(404);
    const chained = await client.responses
      .create({ model: 'kept-gemini', input: 'x', previous_response_id: created.id })
      .catch((error: unknown) => error);
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chained as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });

  it('keeps nothing for store: false', async () => {
    const created = await client.responses.create({ model: 'kept-openai', input: 'forget me', store: false });

    expect(created).toHaveProperty('store', false);
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await client.responses
      .create({ model: 'kept-openai', input: 'x', previous_response_id: created.id })
      .catch((error: unknown) => error);
    expect((chained as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });
});

describe("another account's key", () => {
  it('finds none of the responses: 404 to read, list or delete, 400 to continue', async () => {
    const mine = await client.responses.create({ model: 'kept-openai', input: 'private' });

    await expect(otherClient.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    for (const [method, path] of [
      ['GET', `/v1/responses/${mine.id}/input_items`],
      ['DELETE', `/v1/responses/${mine.id}`],
    ] as const) {
      const result = await gateway.request(method, path, { key: otherKey });
      expect({ status: result.status, type: result.body.error?.type }).toEqual({
        status: 404,
        type: 'invalid_request_error',
      });
    }
    const chained = await otherClient.responses
      .create({ model: 'kept-openai', input: 'x', previous_response_id: mine.id })
      .catch((error: unknown) => error);
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chained as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
    // Still there for its owner.
    expect((await client.responses.retrieve(mine.id)).id).toBe(mine.id);
  });
});

describe('rate limits on a chained turn', () => {
  it('charge the whole rebuilt conversation, not only the new input', async () => {
    const { key } = await gateway.createAccountWithKey({}, { rateLimit: { rpm: 100, tpm: 1_500 } });
    const limited = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const long = 'word '.repeat(800);
    const first = await limited.responses.create({ model: 'kept-openai', input: long, max_output_tokens: 16 });

    const second = await limited.responses
      .create({ model: 'kept-openai', input: 'ok', max_output_tokens: 16, previous_response_id: first.id })
      .catch((error: unknown) => error);

    expect(second).toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describeInProcess("needs a fake upstream that keeps whole requests (a remote run's fake keeps each in one store item)")(
  'a conversation larger than one store item',
  () => {
    it('is split over several items and read back whole', async () => {
      // Random text: compression cannot bring it under one item of 350,000 bytes.
      const large = randomBytes(900_000).toString('base64');
      const first = await client.responses.create({ model: 'kept-anthropic', input: large });

      await client.responses.create({ model: 'kept-anthropic', input: 'short', previous_response_id: first.id });

      expect(conversationSent.anthropic(await lastBody(anthropicUpstream))).toEqual([large, `Echo: ${large}`, 'short']);
      expect(await client.responses.retrieve(first.id)).toEqual(first);
    });
  },
);

describeInProcess('sets the environment of the functions in this process')('a retention of 0 days', () => {
  it('keeps no response, whatever the client asks', async () => {
    process.env.GATEWAY_RESPONSES_RETENTION_DAYS = '0';
    try {
      const created = await client.responses.create({ model: 'kept-openai', input: 'not kept' });

      expect(created).toHaveProperty('store', false);
      await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      delete process.env.GATEWAY_RESPONSES_RETENTION_DAYS;
    }
  });
});
