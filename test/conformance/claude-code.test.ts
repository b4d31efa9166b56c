import { bedrockRoutes } from '../support/fake-upstream/bedrock-wire.js';
import { startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../support/fake-upstream/fake-upstream.js';
import { geminiRoutes } from '../support/fake-upstream/gemini-wire.js';
import { strictAnthropicRoutes } from '../support/fake-upstream/strict-anthropic.js';
import { strictOpenAiRoutes } from '../support/fake-upstream/strict-openai.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { recorded, replay as replayRequest, sseEvents, usageRecordOf, type SseEvent } from './replay.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';

/**
 * What Claude Code sends (recorded fixtures: headers and bodies), replayed through every path a
 * Messages request can take: natively to Anthropic, and translated to OpenAI (a reasoning and a
 * non-reasoning model), Bedrock and Gemini. The Anthropic and OpenAI fakes refuse what the vendors
 * refuse, with their error texts, so a field the gateway forwards wrongly fails the case.
 */

interface Fixture {
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

const fixture = (name: string): Fixture => recorded<Fixture>('claude-code', name);

const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-v1:0';
const GEMINI_MODEL = 'gemini-2.5-flash';
/** A public id named like a reasoning model that calls a plain one, and the other way round. */
const REASONING_NAMED_ALIAS = 'claude-opus-4-5';
const PLAIN_NAMED_ALIAS = 'team-fast';
const ANTHROPIC_REASONING_NAMED_ALIAS = 'claude-sonnet-4-5';
let restoreAwsEnvironment: () => void = () => undefined;

let anthropic: FakeUpstream;
let openai: FakeUpstream;
let bedrock: FakeUpstream;
let gemini: FakeUpstream;
let gateway: TestGateway;
let key: string;
let accountId: string;

beforeAll(async () => {
  restoreAwsEnvironment = setFakeAwsCredentials('AKIDCONFORMANCE');
  [anthropic, openai, bedrock, gemini] = await Promise.all([
    startFakeUpstream(strictAnthropicRoutes),
    startFakeUpstream(strictOpenAiRoutes),
    startFakeUpstream(bedrockRoutes(BEDROCK_MODEL)),
    startFakeUpstream(geminiRoutes(GEMINI_MODEL)),
  ]);
  gateway = await startTestGateway();
  const channels = [
    [
      'cc-anthropic',
      { type: 'anthropic', baseUrl: anthropic.origin, apiKey: 'sk-ant-upstream', models: ['cc-claude'] },
    ],
    ['cc-openai-reasoning', { type: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-up', models: ['gpt-5-mini'] }],
    ['cc-openai-plain', { type: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-up', models: ['gpt-4.1'] }],
    // Public ids that say one thing of reasoning while the upstream model they call says the other.
    [
      'cc-openai-alias',
      {
        type: 'openai',
        baseUrl: openai.baseUrl,
        apiKey: 'sk-up',
        models: [REASONING_NAMED_ALIAS, PLAIN_NAMED_ALIAS],
        modelMap: { [REASONING_NAMED_ALIAS]: 'gpt-4.1-mini', [PLAIN_NAMED_ALIAS]: 'gpt-5-mini' },
      },
    ],
    [
      'cc-anthropic-alias',
      {
        type: 'anthropic',
        baseUrl: anthropic.origin,
        apiKey: 'sk-ant-upstream',
        models: [ANTHROPIC_REASONING_NAMED_ALIAS],
        modelMap: { [ANTHROPIC_REASONING_NAMED_ALIAS]: 'claude-3-5-haiku-20241022' },
      },
    ],
    [
      'cc-bedrock',
      {
        type: 'bedrock',
        baseUrl: bedrock.origin,
        models: ['cc-bedrock-claude'],
        modelMap: { 'cc-bedrock-claude': BEDROCK_MODEL },
      },
    ],
    ['cc-gemini', { type: 'gemini', baseUrl: gemini.origin, apiKey: 'gemini-up', models: [GEMINI_MODEL] }],
  ] as const;
  for (const [id, channel] of channels) {
    const result = await gateway.admin('PUT', `/admin/v1/channels/${id}`, {
      ...channel,
      timeouts: { firstByteMs: 3000, idleMs: 2000 },
    });
    expect(result.status).toBe(200);
  }
  const created = await gateway.createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic, openai, bedrock, gemini].map((upstream) => upstream?.close()));
  restoreAwsEnvironment();
});

const replay = async (name: string, model: string, edit: (body: Record<string, any>) => void = () => undefined) => {
  const { headers, body } = fixture(name);
  edit(body);
  const response = await replayRequest(
    gateway.url,
    '/v1/messages',
    { ...headers, 'x-api-key': key },
    { ...body, model },
  );
  // A refusal is one JSON envelope, not an event stream.
  return { ...response, events: response.status === 200 ? sseEvents(response.text) : [] };
};

const toolCallOf = (events: readonly SseEvent[]) => {
  const start = events.find((event) => event.data?.content_block?.type === 'tool_use');
  if (!start) return undefined;
  const input = events
    .filter((event) => event.data?.index === start.data.index && event.data?.delta?.type === 'input_json_delta')
    .map((event) => event.data.delta.partial_json as string)
    .join('');
  return { name: start.data.content_block.name as string, input: JSON.parse(input || '{}') };
};

const textOf = (events: readonly SseEvent[]) =>
  events
    .filter((event) => event.data?.delta?.type === 'text_delta')
    .map((event) => event.data.delta.text as string)
    .join('');

const usageRecord = (requestId: string) => usageRecordOf(gateway, accountId, requestId);

const lastSent = (upstream: FakeUpstream): ReceivedRequest => upstream.received.at(-1)!;

describe.each([
  ['a native anthropic channel', 'cc-claude', () => anthropic],
  ['an openai channel with a reasoning model', 'gpt-5-mini', () => openai],
  ['an openai channel with a non-reasoning model', 'gpt-4.1', () => openai],
  ['an openai channel whose reasoning-named alias calls a plain model', REASONING_NAMED_ALIAS, () => openai],
  ['an openai channel whose plain-named alias calls a reasoning model', PLAIN_NAMED_ALIAS, () => openai],
  ['a bedrock channel', 'cc-bedrock-claude', () => bedrock],
  ['a gemini channel', GEMINI_MODEL, () => gemini],
])('Claude Code on %s', (_name, model, upstream) => {
  test('a first turn streams a tool call with its whole input, and its usage is recorded', async () => {
    const { status, events, requestId, text } = await replay('first-turn', model);

    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(events.some((event) => event.event === 'error')).toBe(false);
    expect(toolCallOf(events)).toEqual({ name: 'Bash', input: expect.any(Object) });
    const delta = events.find((event) => event.event === 'message_delta');
    expect(delta?.data.delta.stop_reason).toBe('tool_use');
    const record = await usageRecord(requestId);
    expect(record).toMatchObject({ status: 'success', model, stream: true });
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(upstream().received.length).toBeGreaterThan(0);
  });

  test('a turn with a system message after the user turn (Claude Code 2.1.328) streams an answer', async () => {
    const { status, events, requestId, text } = await replay('system-message-turn', model);

    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(events.some((event) => event.event === 'error')).toBe(false);
    const record = await usageRecord(requestId);
    expect(record).toMatchObject({ status: 'success', model, stream: true });
  });

  test('a tool result turn with signed thinking streams the answer that uses the result', async () => {
    const { status, events, requestId, text } = await replay('tool-result-turn', model);

    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(textOf(events)).toContain('README.md');
    expect(events.at(-1)?.event).toBe('message_stop');
    const record = await usageRecord(requestId);
    expect(record).toMatchObject({ status: 'success', model });
    expect(record.promptTokens).toBeGreaterThan(0);
  });
});

describe('what each channel type receives from Claude Code', () => {
  test('anthropic gets the betas and the beta-gated fields untouched, and its cache counts are recorded apart', async () => {
    const { requestId } = await replay('first-turn', 'cc-claude');
    const sent = lastSent(anthropic);

    expect(String(sent.headers['anthropic-beta']).split(',')).toEqual(
      expect.arrayContaining(['context-management-2025-06-27', 'interleaved-thinking-2025-05-14']),
    );
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body.context_management).toEqual({ edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] });
    expect(sent.body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    const record = await usageRecord(requestId);
    // The fake reports 11 input, 3 read from the cache and 2 written to it.
    expect(record).toMatchObject({ promptTokens: 16, cachedTokens: 3, cacheWriteTokens: 2 });
  });

  test('anthropic gets a system message in the conversation where Claude Code put it, untouched', async () => {
    const { body } = fixture('system-message-turn');
    await replay('system-message-turn', 'cc-claude');
    const sent = lastSent(anthropic).body;

    expect(sent.messages).toEqual(body.messages);
    expect(sent.output_config).toEqual({ effort: 'high' });
    expect(sent.thinking).toEqual({ type: 'adaptive', display: 'omitted' });
  });

  test('openai gets the system message as a chat system message after the user turn', async () => {
    await replay('system-message-turn', 'gpt-4.1');
    const roles = lastSent(openai).body.messages.map((message: any) => message.role);

    expect(roles).toEqual(['system', 'user', 'system']);
  });

  test('a model’s reasoning is the upstream model’s, not the public id’s, on every channel type', async () => {
    await replay('first-turn', REASONING_NAMED_ALIAS);
    const plain = lastSent(openai).body;
    expect(plain.model).toBe('gpt-4.1-mini');
    expect(plain).not.toHaveProperty('reasoning_effort');
    expect(plain).not.toHaveProperty('max_completion_tokens');
    expect(plain.max_tokens).toEqual(expect.any(Number));

    await replay('first-turn', PLAIN_NAMED_ALIAS);
    const reasoning = lastSent(openai).body;
    expect(reasoning.model).toBe('gpt-5-mini');
    expect(reasoning.reasoning_effort).toEqual(expect.any(String));
    expect(reasoning).not.toHaveProperty('max_tokens');

    const { status, text } = await replay('first-turn', ANTHROPIC_REASONING_NAMED_ALIAS);
    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    const native = lastSent(anthropic).body;
    expect(native.model).toBe('claude-3-5-haiku-20241022');
    expect(native).not.toHaveProperty('thinking');
  });

  test('gemini’s input count, sent with its first content, is in message_start as the upstream gave it', async () => {
    const { status, events, requestId } = await replay('first-turn', GEMINI_MODEL);

    expect(status).toBe(200);
    const [start] = events;
    expect(start?.event).toBe('message_start');
    // The fake Gemini counts 11 prompt tokens, 3 of them cached, in every response; the estimate of
    // this prompt is far more. Anthropic counts the cached ones apart.
    expect(start?.data.message.usage).toMatchObject({ input_tokens: 8, cache_read_input_tokens: 3 });
    // Held only until the first content: the next events are the content that came with the count.
    expect(events.slice(1).find((event) => event.event !== 'ping')?.event).toBe('content_block_start');
    expect(await usageRecord(requestId)).toMatchObject({ promptTokens: 11 });
  });

  test('count_tokens reaches anthropic with the betas', async () => {
    const { headers, body } = fixture('first-turn');
    const { max_tokens: _max, stream: _stream, temperature: _temperature, metadata: _metadata, ...countable } = body;
    const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { ...headers, 'x-api-key': key },
      body: JSON.stringify({ ...countable, model: 'cc-claude' }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 42 });
    expect(lastSent(anthropic).headers['anthropic-beta']).toContain('context-management-2025-06-27');
  });

  test('a reasoning openai model gets max_completion_tokens and an effort; a plain one neither effort nor extras', async () => {
    await replay('first-turn', 'gpt-5-mini');
    const reasoning = lastSent(openai).body;
    await replay('first-turn', 'gpt-4.1');
    const plain = lastSent(openai).body;

    expect(reasoning).toMatchObject({ max_completion_tokens: 32000, reasoning_effort: 'high' });
    expect(reasoning).not.toHaveProperty('max_tokens');
    expect(plain).toMatchObject({ max_tokens: 32000 });
    expect(plain).not.toHaveProperty('reasoning_effort');
    expect(plain).not.toHaveProperty('context_management');
  });

  test('bedrock gets the betas it accepts in the body, and cache points where Claude Code marked the prompt', async () => {
    await replay('first-turn', 'cc-bedrock-claude');
    const sent = lastSent(bedrock).body;

    expect(sent.additionalModelRequestFields.anthropic_beta).toEqual(
      expect.arrayContaining(['interleaved-thinking-2025-05-14', 'context-management-2025-06-27']),
    );
    expect(sent.additionalModelRequestFields.anthropic_beta).not.toContain('claude-code-20250219');
    expect(sent.system).toContainEqual({ cachePoint: { type: 'default' } });
  });

  test('bedrock gets the signed thinking of the previous turn back, exactly', async () => {
    await replay('tool-result-turn', 'cc-bedrock-claude');
    const assistant = lastSent(bedrock).body.messages.find((message: any) => message.role === 'assistant');

    expect(assistant.content[0]).toEqual({
      reasoningContent: {
        reasoningText: { text: 'The user wants a listing; Bash with ls will do.', signature: 'sig_fake' },
      },
    });
  });

  test('anthropic gets a conversation another vendor answered, without the thinking it cannot verify', async () => {
    const { status, text } = await replay('tool-result-turn', 'cc-claude', (body) => {
      // What a translated channel's answer came back as: reasoning with no Anthropic signature.
      body.messages[1].content[0].signature = '';
    });
    const sent = lastSent(anthropic).body;

    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(sent.messages[1].content.map((block: any) => block.type)).toEqual(['tool_use']);
    expect(sent).not.toHaveProperty('thinking');
  });

  test('an admin can declare a model reasoning, and the translation follows the setting', async () => {
    const channel = await gateway.admin('PUT', '/admin/v1/channels/cc-openai-house', {
      type: 'openai',
      baseUrl: openai.baseUrl,
      apiKey: 'sk-up',
      models: ['house-model'],
      modelMap: { 'house-model': 'o9-house' },
    });
    const declared = await gateway.admin('PUT', '/admin/v1/models/house-model', {
      reasoning: true,
      pricing: { inputPerMTok: 1, outputPerMTok: 2, cacheWritePerMTok: 1.5 },
    });

    expect(channel.status).toBe(200);
    expect(declared.status).toBe(200);
    expect(declared.body).toMatchObject({ reasoning: true, pricing: { cacheWritePerMTok: 1.5 } });
    const { status, text } = await replay('first-turn', 'house-model');

    expect({ status, text: status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(lastSent(openai).body).toMatchObject({
      model: 'o9-house',
      max_completion_tokens: 32000,
      reasoning_effort: 'high',
    });
  });
});
