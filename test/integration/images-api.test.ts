import type OpenAI from 'openai';
import { fakePngBase64 } from '../support/fake-upstream/openai-images-wire.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startOpenAiChannel, type OpenAiChannelSetup } from '../support/openai-channel-setup.js';
import type { TestGateway } from '../support/test-gateway.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

let setup: OpenAiChannelSetup;

beforeAll(async () => {
  setup = await startOpenAiChannel(
    { wire: 'openai-images' },
    {
      models: ['image-test'],
      modelMap: { 'image-test': 'upstream-image' },
    },
  );
  ({ upstream, gateway, client, key } = setup);
});

afterAll(async () => {
  await setup?.close();
});

describe('POST /v1/images/generations on an OpenAI-compatible channel', () => {
  it('relays images and usage, sending the upstream its model name', async () => {
    const result = await client.images.generate({
      model: 'image-test',
      prompt: 'a red fox',
      n: 2,
      size: '1024x1024',
      quality: 'high',
    });

    expect(result.created).toBe(1_700_000_000);
    expect(result.data).toEqual([{ b64_json: fakePngBase64 }, { b64_json: fakePngBase64 }]);
    expect(result.usage).toMatchObject({ input_tokens: 9, output_tokens: 272, total_tokens: 281 });
    expect((await upstream.receivedRequests()).at(-1)!.body).toEqual({
      model: 'upstream-image',
      prompt: 'a red fox',
      n: 2,
      size: '1024x1024',
      quality: 'high',
    });
  });

  it('relays url answers with the revised prompt', async () => {
    const result = await client.images.generate({
      model: 'image-test',
      prompt: 'a fox',
      response_format: 'url',
      style: 'vivid',
    });

    expect(result.data![0]).toEqual({ url: 'https://images.example/fake.png', revised_prompt: 'revised: a fox' });
  });
});

describe('POST /v1/images/generations on the demo channel', () => {
  it('answers a real PNG of the requested size as b64_json', async () => {
    const result = await client.images.generate({
      model: 'demo-1',
      prompt: 'a blue whale',
      size: '256x256',
      response_format: 'b64_json',
    });

    const png = Buffer.from(result.data![0]!.b64_json!, 'base64');
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
    expect(result.data![0]!.revised_prompt).toBe('a blue whale');
  });

  it('is deterministic per prompt, different for another prompt, n images per request', async () => {
    const first = await client.images.generate({ model: 'demo-1', prompt: 'same', size: '256x256', n: 2 });
    const again = await client.images.generate({ model: 'demo-1', prompt: 'same', size: '256x256', n: 2 });
    const other = await client.images.generate({ model: 'demo-1', prompt: 'other', size: '256x256' });

    expect(first.data).toHaveLength(2);
    expect(again.data![0]!.b64_json).toBe(first.data![0]!.b64_json);
    expect(first.data![1]!.b64_json).not.toBe(first.data![0]!.b64_json);
    expect(other.data![0]!.b64_json).not.toBe(first.data![0]!.b64_json);
  });

  it('answers a data: URL for response_format url', async () => {
    const result = await client.images.generate({
      model: 'demo-1',
      prompt: 'a cat',
      size: '256x256',
      response_format: 'url',
    });

    expect(result.data![0]!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it('answers a 400 naming output_format for a format it cannot encode', async () => {
    const result = await gateway.request('POST', '/v1/images/generations', {
      key,
      body: { model: 'demo-1', prompt: 'x', output_format: 'webp' },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ param: 'output_format' });
  });
});

describe('POST /v1/images/generations validation', () => {
  it.each([
    ['a missing prompt', { prompt: undefined }, 'prompt', 'missing_required'],
    ['an empty prompt', { prompt: '' }, 'prompt', 'invalid_value'],
    ['a prompt over 32000 characters', { prompt: 'p'.repeat(32_001) }, 'prompt', 'invalid_value'],
    ['n of 0', { n: 0 }, 'n', 'invalid_value'],
    ['n of 11', { n: 11 }, 'n', 'invalid_value'],
    ['an unknown size', { size: '100x100' }, 'size', 'invalid_value'],
    ['an unknown quality', { quality: 'ultra' }, 'quality', 'invalid_value'],
    ['an unknown style', { style: 'noir' }, 'style', 'invalid_value'],
    ['an unknown response format', { response_format: 'png' }, 'response_format', 'invalid_value'],
    ['an unknown background', { background: 'green' }, 'background', 'invalid_value'],
    ['an unknown output format', { output_format: 'gif' }, 'output_format', 'invalid_value'],
  ])('rejects %s with a 400 naming the field', async (_name, body, param, code) => {
    const result = await gateway.request('POST', '/v1/images/generations', {
      key,
      body: { model: 'demo-1', prompt: 'x', ...body },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
  });
});
