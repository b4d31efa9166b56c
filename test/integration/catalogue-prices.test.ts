import { calcPrice } from '@pydantic/genai-prices';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startUpstream } from '../support/upstream-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Models without an admin price are priced from the price catalogue by the channel's provider and the
 * upstream model id it calls; requests are charged that price, and the admin API says where it came from.
 */

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream({ wire: 'openai' });
  gateway = await startTestGateway();
  // `house-model` calls the upstream's `gpt-4o`, which the catalogue prices under OpenAI.
  await gateway.admin('PUT', '/admin/v1/channels/catalogue-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['house-model', 'unpriced-model', 'admin-priced'],
    modelMap: { 'house-model': 'gpt-4o' },
  });
  await gateway.admin('PUT', '/admin/v1/channels/catalogue-anthropic', {
    type: 'anthropic',
    apiKey: 'sk-ant-catalogue-test',
    models: ['claude-sonnet'],
    modelMap: { 'claude-sonnet': 'claude-sonnet-4-5-20250929' },
  });
  await gateway.admin('PUT', '/admin/v1/channels/catalogue-bedrock', {
    type: 'bedrock',
    models: ['nova-pro'],
    modelMap: { 'nova-pro': 'amazon.nova-pro-v1:0' },
  });
  await gateway.admin('PUT', '/admin/v1/channels/catalogue-gemini', {
    type: 'gemini',
    apiKey: 'catalogue-test-key',
    models: ['gemini-2.5-pro'],
  });
  // An admin price overrides the catalogue's, even for a model the catalogue knows.
  await gateway.admin('PUT', '/admin/v1/models/admin-priced', { pricing: { inputPerMTok: 7, outputPerMTok: 9 } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const catalogue = (model: string, providerId: string) =>
  calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId })!.model_price;

describe('a price for every model', () => {
  test('the admin API shows each served model with its effective price and where it comes from', async () => {
    const listed = await gateway.admin('GET', '/admin/v1/models');
    expect(listed.status).toBe(200);
    const byId = new Map((listed.body.data as { id: string }[]).map((model) => [model.id, model]));

    expect(byId.get('house-model')).toMatchObject({
      pricingSource: 'catalog',
      pricing: { inputPerMTok: catalogue('gpt-4o', 'openai').input_mtok, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
    });
    expect(byId.get('unpriced-model')).toMatchObject({ pricingSource: 'none', pricing: null });
    expect(byId.get('admin-priced')).toMatchObject({
      pricingSource: 'admin',
      pricing: { inputPerMTok: 7, outputPerMTok: 9 },
    });
    expect(byId.get('nova-pro')).toMatchObject({ pricingSource: 'catalog', pricing: { inputPerMTok: 0.8 } });
  });

  test('long-context tiers and cache prices come with the catalogue price', async () => {
    const claude = await gateway.admin('GET', '/admin/v1/models/claude-sonnet');
    expect(claude.status).toBe(200);
    expect(claude.body).toMatchObject({
      id: 'claude-sonnet',
      pricingSource: 'catalog',
      pricing: {
        inputPerMTok: 3,
        outputPerMTok: 15,
        cachedInputPerMTok: 0.3,
        cacheWritePerMTok: 3.75,
        tiers: [{ aboveInputTokens: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 }],
      },
    });
    const gemini = await gateway.admin('GET', '/admin/v1/models/gemini-2.5-pro');
    expect(gemini.body).toMatchObject({ pricingSource: 'catalog', pricing: { inputPerMTok: 1.25 } });
  });

  test('an unknown model is a 404', async () => {
    expect((await gateway.admin('GET', '/admin/v1/models/nothing-serves-this')).status).toBe(404);
  });

  test("a catalogue-priced model is charged the catalogue's price", async () => {
    const { key, keyId } = await gateway.createAccountWithKey();
    const response = await gateway.request('POST', '/v1/chat/completions', {
      key,
      body: { model: 'house-model', messages: [{ role: 'user', content: 'price me' }] },
    });
    expect(response.status).toBe(200);
    // The fake reports 11 prompt tokens (3 of them cached) and 7 completion tokens.
    const { usage } = response.body as { usage: { prompt_tokens: number; completion_tokens: number } };
    const expected = calcPrice(
      { input_tokens: usage.prompt_tokens, cache_read_tokens: 3, output_tokens: usage.completion_tokens },
      'gpt-4o',
      { providerId: 'openai' },
    )!.total_price;

    const records = async () =>
      (await gateway.admin('GET', `/admin/v1/usage?keyId=${keyId}`)).body.data as { cost: number }[];
    await waitFor(async () => (await records()).length === 1);
    const [record] = await records();
    expect(record!.cost).toBeGreaterThan(0);
    expect(record!.cost).toBeCloseTo(expected, 12);
  });
});
