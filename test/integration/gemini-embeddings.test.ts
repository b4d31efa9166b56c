import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { geminiFakeVector, geminiRoutes } from '../support/fake-upstream/gemini-wire.js';
import { runId } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const GEMINI_KEY = 'AIza-embeddings-secret-0123456789';
const MODEL = `gemini-embed-${runId}`;

let upstream: FakeUpstream;
let gateway: TestGateway;
let key: string;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream(geminiRoutes('text-embedding-upstream'));
  gateway = await startTestGateway();
  const put = await gateway.admin('PUT', `/admin/v1/channels/gemini-embed-${runId}`, {
    type: 'gemini',
    baseUrl: upstream.origin,
    apiKey: GEMINI_KEY,
    models: [MODEL],
    modelMap: { [MODEL]: 'text-embedding-upstream' },
    timeouts: { firstByteMs: 5000, idleMs: 5000 },
  });
  expect(put.status).toBe(200);
  ({ key } = await gateway.createAccountWithKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

afterEach(() => upstream.clearFaults());

describe('POST /v1/embeddings on a gemini channel (batchEmbedContents)', () => {
  it('sends one EmbedContentRequest per input under the upstream model, with the channel key', async () => {
    const result = await client.embeddings.create({
      model: MODEL,
      input: ['first', 'second'],
      encoding_format: 'float',
    });

    expect(result).toMatchObject({ object: 'list', model: MODEL });
    expect(result.data).toEqual([
      { object: 'embedding', index: 0, embedding: geminiFakeVector(0) },
      { object: 'embedding', index: 1, embedding: geminiFakeVector(1) },
    ]);
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
    const sent = upstream.received.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/text-embedding-upstream:batchEmbedContents');
    expect(sent.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent.body).toEqual({
      requests: [
        { model: 'models/text-embedding-upstream', content: { parts: [{ text: 'first' }] } },
        { model: 'models/text-embedding-upstream', content: { parts: [{ text: 'second' }] } },
      ],
    });
  });

  it('maps dimensions to outputDimensionality and answers base64 when asked (the SDK default)', async () => {
    const result = await client.embeddings.create({ model: MODEL, input: 'one', dimensions: 4 });

    // The SDK asked for base64 and decoded it back into float32 numbers.
    expect(result.data[0]!.embedding).toEqual(geminiFakeVector(0, 4));
    expect(upstream.received.at(-1)!.body.requests[0].outputDimensionality).toBe(4);
  });

  it('refuses token-id inputs with a 400 in OpenAI form, without calling the upstream', async () => {
    const sentBefore = upstream.received.length;
    const result = await gateway.request('POST', '/v1/embeddings', { key, body: { model: MODEL, input: [1, 2, 3] } });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
    expect(upstream.received.length).toBe(sentBefore);
  });

  it("relays Google's refusal of the request as the client's error, without the channel key", async () => {
    upstream.inject({
      kind: 'status',
      status: 400,
      body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } },
    });
    const result = await gateway.request('POST', '/v1/embeddings', { key, body: { model: MODEL, input: 'x' } });

    expect(result.status).toBe(400);
    expect(result.body.error.message).toContain('invalid argument');
    expect(result.text).not.toContain(GEMINI_KEY);
  });
});
