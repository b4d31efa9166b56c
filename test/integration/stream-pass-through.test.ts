import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicRoutes } from '../support/fake-upstream/anthropic-wire.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let openAiUpstream: FakeUpstream;
let anthropicUpstream: FakeUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  openAiUpstream = await startFakeUpstream(openAiRoutes);
  anthropicUpstream = await startFakeUpstream(anthropicRoutes);
  gateway = await startTestGateway();
  const channels = [
    gateway.admin('PUT', '/admin/v1/channels/relay-openai', {
      type: 'openai',
      baseUrl: openAiUpstream.baseUrl,
      models: ['relay-gpt'],
      modelMap: { 'relay-gpt': 'upstream-gpt' },
    }),
    gateway.admin('PUT', '/admin/v1/channels/relay-anthropic', {
      type: 'anthropic',
      baseUrl: anthropicUpstream.origin,
      apiKey: 'sk-ant-relay',
      models: ['relay-claude'],
      modelMap: { 'relay-claude': 'upstream-claude' },
    }),
  ];
  for (const result of await Promise.all(channels)) expect(result.status).toBe(200);
  const { key } = await gateway.createAccountWithKey();
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await openAiUpstream?.close();
  await anthropicUpstream?.close();
});

/**
 * A gate for the fake upstream: event N leaves only once the client has received N chunks. A relay
 * that held a chunk back until the next one arrived would never let the stream finish.
 */
const lockstep = () => {
  let received = 0;
  const waiting: { index: number; release: () => void }[] = [];
  return {
    gate: (index: number) =>
      new Promise<void>((release) => (received >= index ? release() : waiting.push({ index, release }))),
    received: () => {
      received += 1;
      for (const waiter of waiting.filter((entry) => entry.index <= received)) waiter.release();
    },
  };
};

const ask = (content: string) => ({
  model: 'relay-gpt',
  stream: true as const,
  messages: [{ role: 'user' as const, content }],
});

describe('an OpenAI chat stream on an openai channel', () => {
  it('reuses one upstream connection for consecutive streams', async () => {
    const before = openAiUpstream.connectionsAccepted;
    for (let index = 0; index < 3; index++) {
      let text = '';
      for await (const chunk of await openai.chat.completions.create(ask(`stream ${index}`)))
        text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(`Echo: stream ${index}`);
    }
    expect(openAiUpstream.connectionsAccepted - before).toBe(1);
  });

  it('forwards each chunk before the upstream sends the next, under the public model name', async () => {
    const steps = lockstep();
    openAiUpstream.inject({ kind: 'gated-stream', gate: steps.gate });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    const stream = await openai.chat.completions.create({
      ...ask('one chunk at a time'),
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      chunks.push(chunk);
      steps.received();
    }
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Echo: one chunk at a time');
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['relay-gpt']));
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } });
  });

  it('leaves out the usage chunk and the usage field for a client that did not ask for usage', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(ask('no usage please')),
    });
    const text = await response.text();
    const events = text
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => event.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data) as Record<string, unknown>);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk).not.toHaveProperty('usage');
      expect(chunk.choices).not.toEqual([]);
      expect(chunk.model).toBe('relay-gpt');
    }
  });

  it('answers 200 with its headers while the upstream is still silent, then the first event', async () => {
    // The first event leaves the upstream only once the client holds the answer's head: a relay that
    // kept the head back for the first event would never answer.
    let headReceived: () => void = () => undefined;
    const head = new Promise<void>((resolve) => (headReceived = resolve));
    openAiUpstream.inject({ kind: 'gated-stream', gate: (index) => (index === 0 ? head : Promise.resolve()) });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(ask('slow to start')),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    headReceived();
    const text = await response.text();
    expect(text).toContain('"model":"relay-gpt"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('sends an error event when the upstream fails mid-stream', async () => {
    openAiUpstream.inject({
      kind: 'error-mid-stream',
      afterEvents: 2,
      event: 'data: {"error":{"message":"the model crashed","type":"server_error"}}\n\n',
    });
    const received: string[] = [];
    const failure = await (async () => {
      for await (const chunk of await openai.chat.completions.create(ask('then it breaks')))
        received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((error: unknown) => error);
    expect(received).toHaveLength(2);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(String((failure as Error).message)).toContain('the model crashed');
  });
});

describe('an Anthropic Messages stream on an anthropic channel', () => {
  it('reuses one upstream connection for consecutive streams', async () => {
    const before = anthropicUpstream.connectionsAccepted;
    for (let index = 0; index < 3; index++) {
      const message = await anthropic.messages
        .stream({ model: 'relay-claude', max_tokens: 64, messages: [{ role: 'user', content: `again ${index}` }] })
        .finalMessage();
      expect(message.content).toEqual([expect.objectContaining({ text: `Echo: again ${index}` })]);
    }
    expect(anthropicUpstream.connectionsAccepted - before).toBe(1);
  });

  it('forwards each event before the upstream sends the next, with the public model name and usage', async () => {
    const steps = lockstep();
    anthropicUpstream.inject({ kind: 'gated-stream', gate: steps.gate });
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': openai.apiKey!, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'relay-claude',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'one event at a time' }],
      }),
    });
    // Counted from the bytes, not through an SDK: the SDK does not surface every event type (ping).
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body!) {
      const before = text.split('\n\n').length;
      text += decoder.decode(chunk, { stream: true });
      for (let index = before; index < text.split('\n\n').length; index++) steps.received();
    }
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((event) => ({
        name: /^event: (.*)$/m.exec(event)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as Record<string, any>,
      }));
    expect(events.map((event) => event.name)).toEqual(events.map((event) => event.data.type));
    expect(events[0]!.data.message.model).toBe('relay-claude');
    expect(events.at(-1)!.name).toBe('message_stop');
    const deltas = events.filter((event) => event.name === 'content_block_delta');
    expect(deltas.map((event) => event.data.delta.text).join('')).toBe('Echo: one event at a time');
    expect(events.find((event) => event.name === 'message_delta')!.data.usage).toMatchObject({ output_tokens: 7 });
  });
});

describe('a translated stream (a Messages client on an openai channel)', () => {
  it('reuses one upstream connection for consecutive streams', async () => {
    const before = openAiUpstream.connectionsAccepted;
    for (let index = 0; index < 3; index++) {
      const message = await anthropic.messages
        .stream({ model: 'relay-gpt', max_tokens: 64, messages: [{ role: 'user', content: `translated ${index}` }] })
        .finalMessage();
      expect(message.content).toEqual([expect.objectContaining({ text: `Echo: translated ${index}` })]);
    }
    expect(openAiUpstream.connectionsAccepted - before).toBeLessThanOrEqual(1);
  });
});
