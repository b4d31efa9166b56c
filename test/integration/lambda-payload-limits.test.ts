import { randomBytes } from 'node:crypto';
import type { WireRoute } from '../support/fake-upstream/fake-upstream.js';
import { startOpenAiChannel, type OpenAiChannelSetup } from '../support/openai-channel-setup.js';

/**
 * A buffered Lambda answer may not pass 6 MB; image and embedding answers easily do, so their
 * functions stream them (up to 200 MB). These answers are whole on arrival, through the official SDK.
 */
const SIX_MB = 6 * 1024 * 1024;
// Three 3 MB images: 12 MB of b64_json.
const IMAGE = randomBytes(3 * 1024 * 1024).toString('base64');
const DIMENSIONS = 1536;

const largeImages: WireRoute = ({ request, response }) => {
  const data = Array.from({ length: request.body.n ?? 1 }, () => ({ b64_json: IMAGE }));
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ created: 1_700_000_000, data }));
};

/** Vector `index` holds `index` in every dimension: recognisable after the trip. */
const largeEmbeddings: WireRoute = ({ request, response }) => {
  const inputs: string[] = request.body.input;
  const data = inputs.map((_input, index) => {
    const vector = new Float32Array(DIMENSIONS).fill(index);
    return { object: 'embedding', index, embedding: Buffer.from(vector.buffer).toString('base64') };
  });
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      object: 'list',
      data,
      model: request.body.model,
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    }),
  );
};

let setup: OpenAiChannelSetup;

beforeAll(async () => {
  setup = await startOpenAiChannel(
    { 'POST /v1/images/generations': largeImages, 'POST /v1/embeddings': largeEmbeddings },
    { models: ['large-image', 'large-embedding'] },
  );
});

afterAll(async () => {
  await setup?.close();
});

describe('answers over the 6 MB a buffered Lambda answer may carry', () => {
  it('delivers three large images whole', async () => {
    const result = await setup.client.images.generate({ model: 'large-image', prompt: 'a large fox', n: 3 });

    expect(result.data).toHaveLength(3);
    for (const image of result.data ?? []) expect(image.b64_json === IMAGE).toBe(true);
    expect(3 * IMAGE.length).toBeGreaterThan(SIX_MB);
  });

  it('delivers a large batch of embeddings whole, every vector in its place', async () => {
    const inputs = Array.from({ length: 1100 }, (_, index) => `text ${index}`);

    const result = await setup.client.embeddings.create({
      model: 'large-embedding',
      input: inputs,
      encoding_format: 'base64',
    });

    expect(result.data).toHaveLength(inputs.length);
    const last = new Uint8Array(Buffer.from(result.data.at(-1)!.embedding as unknown as string, 'base64'));
    expect(new Float32Array(last.buffer).every((value) => value === inputs.length - 1)).toBe(true);
    expect(inputs.length * DIMENSIONS * 4 * (4 / 3)).toBeGreaterThan(SIX_MB);
  });
});
