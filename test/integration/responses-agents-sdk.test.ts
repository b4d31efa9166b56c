import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The Agents SDK runs its tool loop on stored responses (DESIGN §12): each turn sends only what is new
 * with `previousResponseId`, and the gateway rebuilds the whole conversation for the upstream.
 */

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
/** The bodies the SDK sent the gateway, in order. */
const sent: any[] = [];

beforeAll(async () => {
  setTracingDisabled(true);
  upstream = await startUpstream({ wire: 'openai-responses' });
  gateway = await startTestGateway();
  const channel = await gateway.admin('PUT', '/admin/v1/channels/agents-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['agents-openai'],
  });
  expect(channel.status).toBe(200);
  const { key } = await gateway.createAccountWithKey();
  client = new OpenAI({
    apiKey: key,
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    // Records what the SDK sends, through the client's own fetch option.
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
      return fetch(url, init);
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join('');

/** An upstream request's input, each item as its type and, for a message, its text. */
const conversationOf = (body: any): string[] =>
  body.input
    .filter((item: any) => item.type !== 'reasoning')
    .map((item: any) =>
      item.type === 'message' ? `${item.role}: ${textOf(item.content)}` : `${item.type}: ${item.output ?? item.name}`,
    );

describe('the Agents SDK with previousResponseId', () => {
  it('completes a tool loop, the upstream receiving the whole conversation on every turn', async () => {
    const first = await client.responses.create({ model: 'agents-openai', input: 'I am in France.' });
    expect(first.output_text).toBe('Native echo: I am in France.');

    const cities: string[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
      execute: (input) => {
        const { city } = input as { city: string };
        cities.push(city);
        return `21 C in ${city}`;
      },
    });
    const agent = new Agent({ name: 'weather', model: 'agents-openai', tools: [getWeather] });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
      tracingDisabled: true,
    });

    const result = await runner.run(agent, 'Weather in Paris?', { previousResponseId: first.id });

    expect(result.finalOutput).toBe('The tool said: 21 C in Paris');
    expect(cities).toEqual(['Paris']);

    // The SDK sent only what was new, chained by the gateway's ids.
    const ids = result.rawResponses.map((response) => response.responseId);
    expect(ids).toHaveLength(2);
    for (const id of [first.id, ...ids]) expect(id).toMatch(/^resp_[0-9A-Za-z]{40}$/);
    expect(new Set([first.id, ...ids]).size).toBe(3);
    expect(result.lastResponseId).toBe(ids[1]);
    const agentTurns = sent.slice(1);
    expect(agentTurns.map((body) => body.previous_response_id)).toEqual([first.id, ids[0]]);
    expect(agentTurns[1].input.map((item: { type: string }) => item.type)).toEqual(['function_call_output']);

    // The gateway rebuilt the whole conversation for each upstream request.
    const received = (await upstream.receivedRequests()).map((request) => conversationOf(request.body));
    const opening = ['user: I am in France.', 'assistant: Native echo: I am in France.', 'user: Weather in Paris?'];
    expect(received).toEqual([
      ['user: I am in France.'],
      opening,
      [...opening, 'function_call: get_weather', 'function_call_output: 21 C in Paris'],
    ]);
    expect((await client.responses.retrieve(ids[1]!)).previous_response_id).toBe(ids[0]);
  });
});
