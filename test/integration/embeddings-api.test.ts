import type OpenAI from 'openai';
import { fakeVector } from '../support/fake-upstream/openai-embeddings-wire.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startOpenAiChannel, type OpenAiChannelSetup } from '../support/openai-channel-setup.js';
import type { TestGateway } from '../support/test-gateway.js';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

let setup: OpenAiChannelSetup;

beforeAll(async () => {
  setup = await startOpenAiChannel(
    { wire: 'openai-embeddings' },
    {
      models: ['embed-test'],
      modelMap: { 'embed-test': 'upstream-embed' },
    },
  );
  ({ upstream, gateway, client, key } = setup);
});

afterAll(async () => {
  await setup?.close();
});

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe('POST /v1/embeddings on an OpenAI-compatible channel', () => {
  it('relays a batch under the public model id (the SDK asks for base64 and decodes it)', async () => {
    const result = await client.embeddings.create({ model: 'embed-test', input: ['first', 'second'] });

    expect(result).toMatchObject({ object: 'list', model: 'embed-test', usage: { prompt_tokens: 8, total_tokens: 8 } });
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    expect(result.data[1]!.embedding).toEqual(fakeVector(1));
    const sent = (await upstream.receivedRequests()).at(-1)!;
    expect(sent.body).toMatchObject({ model: 'upstream-embed', input: ['first', 'second'], encoding_format: 'base64' });
  });

  it('passes float output and dimensions through', async () => {
    const result = await client.embeddings.create({
      model: 'embed-test',
      input: 'one',
      encoding_format: 'float',
      dimensions: 3,
    });

    expect(result.data[0]).toEqual({ object: 'embedding', index: 0, embedding: fakeVector(0) });
    expect((await upstream.receivedRequests()).at(-1)!.body).toMatchObject({ encoding_format: 'float', dimensions: 3 });
  });
});

describe('POST /v1/embeddings on the demo channel', () => {
  it('answers deterministic 1536-dimension unit vectors', async () => {
    const first = await client.embeddings.create({
      model: 'demo-1',
      input: ['alpha', 'beta'],
      encoding_format: 'float',
    });
    const again = await client.embeddings.create({ model: 'demo-1', input: 'alpha', encoding_format: 'float' });

    expect(first.model).toBe('demo-1');
    expect(first.data[0]!.embedding).toHaveLength(1536);
    expect(norm(first.data[0]!.embedding)).toBeCloseTo(1, 5);
    expect(again.data[0]!.embedding).toEqual(first.data[0]!.embedding);
    expect(first.data[1]!.embedding).not.toEqual(first.data[0]!.embedding);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('encodes base64 as little-endian float32 of the same vector', async () => {
    const asFloat = await gateway.request('POST', '/v1/embeddings', {
      key,
      body: { model: 'demo-1', input: 'gamma', dimensions: 8 },
    });
    const asBase64 = await gateway.request('POST', '/v1/embeddings', {
      key,
      body: { model: 'demo-1', input: 'gamma', dimensions: 8, encoding_format: 'base64' },
    });

    const bytes = Buffer.from(asBase64.body.data[0].embedding as string, 'base64');
    expect(bytes.length).toBe(32);
    const decoded = Array.from({ length: 8 }, (_, index) => bytes.readFloatLE(index * 4));
    expect(decoded).toEqual(asFloat.body.data[0].embedding);
  });

  it('embeds token arrays, counting their tokens', async () => {
    const result = await client.embeddings.create({
      model: 'demo-1',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: 'float',
      dimensions: 4,
    });

    expect(result.data).toHaveLength(2);
    expect(result.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });
});

describe('POST /v1/embeddings validation', () => {
  it.each([
    ['an empty string', { input: '' }, 'input'],
    ['an empty array', { input: [] }, 'input'],
    ['an empty string in a batch', { input: ['a', ''] }, 'input'],
    ['a missing input', { input: undefined }, 'input'],
    ['an object as input', { input: { text: 'a' } }, 'input'],
    ['an unknown encoding', { encoding_format: 'hex' }, 'encoding_format'],
    ['zero dimensions', { dimensions: 0 }, 'dimensions'],
    ['fractional dimensions', { dimensions: 1.5 }, 'dimensions'],
  ])('rejects %s with a 400 naming the field', async (_name, body, param) => {
    const result = await gateway.request('POST', '/v1/embeddings', {
      key,
      body: { model: 'demo-1', input: 'x', ...body },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(String(result.body.error.param)).toMatch(new RegExp(`^${param}`));
  });
});
