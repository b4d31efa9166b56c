import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { strictAnthropicToolRoutes } from '../support/fake-upstream/strict-anthropic-tools.js';
import { FAKE_THOUGHT_SIGNATURE, strictGeminiRoutes } from '../support/fake-upstream/strict-gemini.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { recorded, replay, sseEvents, usageRecordOf } from './replay.js';

/**
 * Gemini CLI's own requests (Gemini 3 with thinking and signed function calls, plus its flash-lite
 * router with a JSON schema) replayed through the gateway: natively on a gemini channel whose fake
 * refuses a call replayed without its signature as Gemini 3 does, and translated onto OpenAI and
 * Anthropic channels.
 */

let gateway: TestGateway;
let geminiUpstream: FakeUpstream;
let openAiUpstream: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let key: string;
let accountId: string;

const headers = recorded<Record<string, string>>('gemini-cli', 'headers');
const firstTurn = recorded('gemini-cli', 'first-turn.request');
const replayedCall = recorded('gemini-cli', 'replayed-call.request');
const router = recorded('gemini-cli', 'router.request');

const models = {
  gemini: 'gemini-3-pro-preview',
  router: 'gemini-2.5-flash-lite',
  openai: 'gemini-cli-on-openai',
  anthropic: 'gemini-cli-on-anthropic',
} as const;

beforeAll(async () => {
  geminiUpstream = await startFakeUpstream({
    ...strictGeminiRoutes('gemini-3-pro-preview-upstream'),
    ...strictGeminiRoutes('gemini-2.5-flash-lite'),
  });
  openAiUpstream = await startFakeUpstream(openAiRoutes);
  anthropicUpstream = await startFakeUpstream(strictAnthropicToolRoutes);
  gateway = await startTestGateway();
  const timeouts = { firstByteMs: 3000, idleMs: 2000 };
  const puts = [
    gateway.admin('PUT', '/admin/v1/channels/gemini-cli-gemini', {
      type: 'gemini',
      baseUrl: geminiUpstream.origin,
      apiKey: 'AIza-upstream-0123456789',
      models: [models.gemini, models.router],
      modelMap: { [models.gemini]: 'gemini-3-pro-preview-upstream' },
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/gemini-cli-openai', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      apiKey: 'sk-upstream-openai-0123456789',
      models: [models.openai],
      timeouts,
    }),
    gateway.admin('PUT', '/admin/v1/channels/gemini-cli-anthropic', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: 'sk-ant-upstream-0123456789',
      models: [models.anthropic],
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
  await Promise.all([geminiUpstream?.close(), openAiUpstream?.close(), anthropicUpstream?.close()]);
});

const geminiCli = async (body: unknown, model: string, action = 'streamGenerateContent?alt=sse') => {
  const response = await replay(
    gateway.url,
    `/v1beta/models/${model}:${action}`,
    { ...headers, 'x-goog-api-key': key },
    body,
  );
  expect({ status: response.status, text: response.status === 200 ? '' : response.text }).toEqual({
    status: 200,
    text: '',
  });
  return response;
};

const streamed = async (body: unknown, model: string) => {
  const response = await geminiCli(body, model);
  const events = sseEvents(response.text).map((event) => event.data);
  const parts = events.flatMap((event) => event.candidates?.[0]?.content?.parts ?? []);
  return {
    events,
    parts,
    usage: events.findLast((event) => event.usageMetadata)?.usageMetadata,
    requestId: response.requestId,
  };
};

const expectRecorded = async (requestId: string, model: string, usage: { promptTokenCount: number }) => {
  expect(await usageRecordOf(gateway, accountId, requestId)).toMatchObject({
    model,
    stream: true,
    status: 'success',
    promptTokens: usage.promptTokenCount,
  });
};

describe('Gemini CLI on a gemini channel (native)', () => {
  it("relays the CLI's body untouched (topK, thinking, JSON schemas) under the channel's model", async () => {
    await streamed(firstTurn, models.gemini);

    const sent = geminiUpstream.received.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-3-pro-preview-upstream:streamGenerateContent?alt=sse');
    expect(sent.body).toEqual(firstTurn);
  });

  it('streams a signed function call, then accepts the call replayed with its signature', async () => {
    const first = await streamed(firstTurn, models.gemini);
    expect(first.parts).toContainEqual(
      expect.objectContaining({
        functionCall: expect.objectContaining({ name: 'read_file' }),
        thoughtSignature: FAKE_THOUGHT_SIGNATURE,
      }),
    );
    expect(first.events.every((event) => event.modelVersion === models.gemini)).toBe(true);
    await expectRecorded(first.requestId, models.gemini, first.usage);

    const second = await streamed(replayedCall, models.gemini);
    expect(second.parts.map((part) => part.text).join('')).toContain('hello, world');
    await expectRecorded(second.requestId, models.gemini, second.usage);
  });

  it("answers the flash-lite router's JSON-schema request whole", async () => {
    const response = await geminiCli(router, models.router, 'generateContent');

    expect(JSON.parse(response.text)).toMatchObject({
      modelVersion: models.router,
      usageMetadata: { promptTokenCount: 11 },
    });
    expect(geminiUpstream.received.at(-1)!.body).toEqual(router);
  });

  it("counts tokens with Google's own count", async () => {
    const response = await geminiCli({ contents: firstTurn.contents }, models.gemini, 'countTokens');

    expect(geminiUpstream.received.at(-1)!.path).toBe('/v1beta/models/gemini-3-pro-preview-upstream:countTokens');
    expect(JSON.parse(response.text).totalTokens).toBeGreaterThan(0);
  });
});

describe.each(['openai', 'anthropic'] as const)('Gemini CLI on an %s channel (translated)', (type) => {
  it('streams a function call the CLI can run, with usage recorded', async () => {
    const { parts, usage, requestId } = await streamed(firstTurn, models[type]);

    expect(parts).toContainEqual(
      expect.objectContaining({ functionCall: expect.objectContaining({ name: 'read_file' }) }),
    );
    expect(usage?.promptTokenCount).toBeGreaterThan(0);
    await expectRecorded(requestId, models[type], usage);
  });

  it('answers after the replayed call and its function response', async () => {
    const { parts, usage, requestId } = await streamed(replayedCall, models[type]);

    expect(parts.map((part) => part.text ?? '').join('')).toContain('hello, world');
    await expectRecorded(requestId, models[type], usage);
  });
});
