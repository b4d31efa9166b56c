import { openAiResponsesRoutes } from '../support/fake-upstream/openai-responses-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { strictAnthropicToolRoutes } from '../support/fake-upstream/strict-anthropic-tools.js';
import { strictGeminiRoutes } from '../support/fake-upstream/strict-gemini.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { recorded, replay, sseEvents, usageRecordOf } from './replay.js';

/**
 * Codex CLI's own requests (`codex exec`, Responses API, always streamed) replayed through the gateway
 * onto each channel type: natively on an OpenAI channel, translated onto Anthropic and Gemini channels
 * whose fakes refuse what those vendors refuse. Codex always sends custom, namespace, tool_search and
 * hosted tools, and replays encrypted reasoning.
 */

let gateway: TestGateway;
let openAiUpstream: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let geminiUpstream: FakeUpstream;
let key: string;
let accountId: string;

const headers = recorded<Record<string, string>>('codex', 'headers');
const firstTurn = recorded('codex', 'first-turn.request');
const replayedTools = recorded('codex', 'replayed-tools.request');

const channels = {
  openai: 'codex-native',
  anthropic: 'codex-on-anthropic',
  gemini: 'codex-on-gemini',
} as const;

beforeAll(async () => {
  openAiUpstream = await startFakeUpstream({ ...openAiRoutes, ...openAiResponsesRoutes });
  anthropicUpstream = await startFakeUpstream(strictAnthropicToolRoutes);
  geminiUpstream = await startFakeUpstream(strictGeminiRoutes('gemini-3-pro-preview'));
  gateway = await startTestGateway();
  const timeouts = { firstByteMs: 3000, idleMs: 2000 };
  const puts = [
    gateway.admin('PUT', '/admin/v1/channels/codex-openai', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      apiKey: 'sk-upstream-openai-0123456789',
      models: [channels.openai],
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/codex-anthropic', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: 'sk-ant-upstream-0123456789',
      models: [channels.anthropic],
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/codex-gemini', {
      type: 'gemini',
      baseUrl: geminiUpstream.origin,
      apiKey: 'AIza-upstream-0123456789',
      models: [channels.gemini],
      modelMap: { [channels.gemini]: 'gemini-3-pro-preview' },
      timeouts,
    }),
  ];
  for (const put of await Promise.all(puts)) expect(put.status).toBe(200);
  const created = await gateway.createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openAiUpstream?.close(), anthropicUpstream?.close(), geminiUpstream?.close()]);
});

const codex = async (body: any, model: string) => {
  const response = await replay(
    gateway.url,
    '/v1/responses',
    { ...headers, authorization: `Bearer ${key}` },
    { ...body, model },
  );
  expect({ status: response.status, text: response.status === 200 ? '' : response.text }).toEqual({
    status: 200,
    text: '',
  });
  const events = sseEvents(response.text);
  const completed = events.find((event) => event.data?.type === 'response.completed')?.data.response;
  expect(completed).toBeDefined();
  expect(events.map((event) => event.data?.sequence_number)).toEqual(events.map((_, index) => index));
  return { events, completed, requestId: response.requestId };
};

/** The usage record of one answer carries the counts its response reported. */
const expectRecorded = async (
  requestId: string,
  model: string,
  usage: { input_tokens: number; output_tokens: number },
) => {
  expect(await usageRecordOf(gateway, accountId, requestId)).toMatchObject({
    model,
    endpoint: 'responses',
    stream: true,
    status: 'success',
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
  });
};

describe.each(['anthropic', 'gemini'] as const)('Codex on a %s channel (translated)', (type) => {
  const upstream = () => (type === 'anthropic' ? anthropicUpstream : geminiUpstream);

  it('calls apply_patch as a custom tool, streamed, with usage recorded', async () => {
    const { completed, requestId } = await codex(firstTurn, channels[type]);

    const call = completed.output.find((item: any) => item.type !== 'reasoning');
    expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
    expect(typeof call.input).toBe('string');
    await expectRecorded(requestId, channels[type], completed.usage);
  });

  it('answers after a turn full of custom, namespaced, tool-search and hosted items, streamed', async () => {
    const { events, completed, requestId } = await codex(replayedTools, channels[type]);

    const text = events
      .filter((event) => event.data?.type === 'response.output_text.delta')
      .map((event) => event.data.delta)
      .join('');
    expect(text).toContain('The tool said');
    expect(completed.output.at(-1)).toMatchObject({ type: 'message', status: 'completed' });
    await expectRecorded(requestId, channels[type], completed.usage);
  });

  it('sends the vendor only functions: no hosted tool, no encrypted reasoning, no OpenAI-only field', async () => {
    await codex(replayedTools, channels[type]);

    const sent = JSON.stringify(upstream().received.at(-1)!.body);
    for (const absent of ['web_search', 'encrypted_content', 'prompt_cache_key', 'reasoning.encrypted_content']) {
      expect(sent).not.toContain(absent);
    }
    expect(sent).toContain('apply_patch');
    expect(sent).toContain('mcp__github__get_issue');
  });
});

describe('Codex on an OpenAI channel (native Responses)', () => {
  it('relays its request intact: include, store, prompt_cache_key, encrypted reasoning and every tool', async () => {
    const { completed, requestId } = await codex(replayedTools, channels.openai);

    const sent = openAiUpstream.received.at(-1)!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toEqual({ ...replayedTools, model: channels.openai, stream: true });
    expect(completed.model).toBe(channels.openai);
    await expectRecorded(requestId, channels.openai, completed.usage);
  });

  it('answers a first turn streamed, with usage recorded', async () => {
    const { completed, requestId } = await codex(firstTurn, channels.openai);

    expect(completed.output[0]).toMatchObject({ type: 'message' });
    await expectRecorded(requestId, channels.openai, completed.usage);
  });
});
