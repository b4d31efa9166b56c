import { buildCatalog, mayUse, usableModels } from '../../functions/shared/catalog/model-catalog.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import type { Channel } from '../../functions/shared/store/channels.js';
import type { ModelSettings } from '../../functions/shared/store/models.js';
import { upstreamModelName } from '../../functions/shared/routing/order-channels.js';
import { formatModelList, selectModelListFormat } from '../../functions/models/format-model-list.js';

const channel = (overrides: Partial<Channel>): Channel => ({
  id: 'c1',
  type: 'openai',
  baseUrl: 'http://127.0.0.1:1/v1',
  models: [],
  modelMap: {},
  endpoints: null,
  priority: 0,
  weight: 1,
  enabled: true,
  createdAt: '2026-01-02T03:04:05.000Z',
  updatedAt: '2026-01-02T03:04:05.000Z',
  ...overrides,
});

const settings = (overrides: Partial<ModelSettings>): ModelSettings => ({
  id: 'x',
  pricing: null,
  aliases: [],
  ownedBy: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const principal = (accountModels: string[] | null, keyModels: string[] | null): Principal => ({
  keyId: 'key_1',
  keyPrefix: 'sk-abc',
  accountId: 'acct_1',
  role: 'user',
  expiresAt: null,
  accountModels,
  keyModels,
  keyRateLimit: null,
  accountRateLimit: null,
});

const catalog = buildCatalog(
  [
    channel({ id: 'oa', models: ['gpt-x', 'embed-x'] }),
    channel({ id: 'an', type: 'anthropic', models: ['claude-x'], endpoints: ['messages', 'images'] }),
    channel({ id: 'off', models: ['hidden-x'], enabled: false }),
  ],
  [
    settings({ id: 'gpt-x', aliases: ['fast', 'claude-x'], ownedBy: 'acme' }),
    settings({ id: 'not-served', aliases: ['ghost'] }),
  ],
);

describe('model ids named as what every object answers to', () => {
  const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];
  const served = buildCatalog(
    [
      channel({ id: 'plain', models: names }),
      channel({ id: 'mapped', models: names, modelMap: { toString: 'upstream-to-string' } }),
    ],
    [],
  );

  it('are listed and served under their own names, mapped only where a channel maps them', () => {
    expect(served.models.map((model) => model.id).sort()).toEqual([...names].sort());
    for (const model of served.models) {
      expect(model.reasoning).toBe(false);
      const onChannel = (id: string) => model.channels.find((channel) => channel.id === id)!;
      expect(upstreamModelName(onChannel('plain'), model)).toBe(model.id);
      expect(upstreamModelName(onChannel('mapped'), model)).toBe(
        model.id === 'toString' ? 'upstream-to-string' : model.id,
      );
    }
  });
});

describe('buildCatalog', () => {
  it('knows the models of every channel and the aliases of configured models only', () => {
    expect(catalog.models.map((model) => model.id)).toEqual(['claude-x', 'embed-x', 'fast', 'gpt-x', 'hidden-x']);
  });

  it('keeps a model whose channels are all disabled, with nothing to serve it', () => {
    expect(catalog.byId.get('hidden-x')?.channels).toEqual([]);
    expect(catalog.byId.get('hidden-x')?.endpoints).toContain('chat');
  });

  it('lets an alias reach its model without shadowing a real id', () => {
    expect(catalog.byId.get('fast')?.canonicalId).toBe('gpt-x');
    expect(catalog.byId.get('claude-x')?.canonicalId).toBe('claude-x');
  });

  it('narrows endpoints to what both the channel type and its list allow', () => {
    expect(catalog.byId.get('claude-x')?.endpoints).toEqual(['messages']);
  });

  it('takes the owner from the model settings, else from the channel type', () => {
    expect(catalog.byId.get('gpt-x')?.ownedBy).toBe('acme');
    expect(catalog.byId.get('claude-x')?.ownedBy).toBe('anthropic');
  });
});

describe('mayUse', () => {
  it('allows every configured model when neither account nor key lists models', () => {
    expect(usableModels(principal(null, null), catalog).map((model) => model.id)).toEqual([
      'claude-x',
      'embed-x',
      'fast',
      'gpt-x',
    ]);
  });

  it('intersects the account list with the key list', () => {
    const ids = usableModels(principal(['gpt-x', 'claude-x'], ['claude-x', 'embed-x']), catalog).map(
      (model) => model.id,
    );

    expect(ids).toEqual(['claude-x']);
  });

  it('lets an alias through when its model is allowed', () => {
    expect(mayUse(principal(['gpt-x'], null), catalog.byId.get('fast')!)).toBe(true);
  });
});

describe('selectModelListFormat', () => {
  it('picks the Anthropic format only with both x-api-key and anthropic-version', () => {
    expect(selectModelListFormat({ 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, {})).toBe('anthropic');
    expect(selectModelListFormat({ 'x-api-key': 'k' }, {})).toBe('openai');
  });

  it('picks the Google format for x-goog-api-key or ?key=', () => {
    expect(selectModelListFormat({ 'x-goog-api-key': 'k' }, {})).toBe('gemini');
    expect(selectModelListFormat({}, { key: 'k' })).toBe('gemini');
  });

  it('prefers the Anthropic rule when both apply, as the spec orders them', () => {
    expect(selectModelListFormat({ 'x-api-key': 'k', 'anthropic-version': 'v', 'x-goog-api-key': 'k' }, {})).toBe(
      'anthropic',
    );
  });
});

describe('formatModelList', () => {
  const models = usableModels(principal(['gpt-x', 'claude-x'], null), catalog);

  it('renders the OpenAI list', () => {
    expect(formatModelList('openai', models)).toEqual({
      object: 'list',
      data: [
        {
          id: 'claude-x',
          object: 'model',
          created: 1767323045,
          owned_by: 'anthropic',
          supported_endpoints: ['/v1/messages'],
        },
        {
          id: 'fast',
          object: 'model',
          created: 1767323045,
          owned_by: 'acme',
          supported_endpoints: [
            '/v1/chat/completions',
            '/v1/messages',
            '/v1/responses',
            '/v1/embeddings',
            '/v1/images/generations',
            '/v1/audio/speech',
          ],
        },
        {
          id: 'gpt-x',
          object: 'model',
          created: 1767323045,
          owned_by: 'acme',
          supported_endpoints: [
            '/v1/chat/completions',
            '/v1/messages',
            '/v1/responses',
            '/v1/embeddings',
            '/v1/images/generations',
            '/v1/audio/speech',
          ],
        },
      ],
    });
  });

  it('renders the Anthropic list with RFC 3339 times and the page ids', () => {
    const list = formatModelList('anthropic', models) as any;

    expect(list.data[0]).toEqual({
      type: 'model',
      id: 'claude-x',
      display_name: 'claude-x',
      created_at: '2026-01-02T03:04:05Z',
    });
    expect(list).toMatchObject({ has_more: false, first_id: 'claude-x', last_id: 'gpt-x' });
  });

  it('renders the Google list with resource names and generation methods', () => {
    const list = formatModelList('gemini', models) as any;

    expect(list.models[2]).toMatchObject({
      name: 'models/gpt-x',
      displayName: 'gpt-x',
      supportedGenerationMethods: [
        'generateContent',
        'streamGenerateContent',
        'countTokens',
        'embedContent',
        'batchEmbedContents',
      ],
    });
    expect(list.models[0].supportedGenerationMethods).toEqual([]);
  });

  it('renders an empty Anthropic list with null page ids', () => {
    expect(formatModelList('anthropic', [])).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });
});
