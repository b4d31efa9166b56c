import { itInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
  for (const [id, models] of [
    ['alpha', ['gpt-a', 'gpt-b']],
    ['beta', ['claude-c']],
  ] as const) {
    const put = await gateway.admin('PUT', `/admin/v1/channels/${id}`, {
      type: id === 'alpha' ? 'openai' : 'anthropic',
      baseUrl: 'http://127.0.0.1:9/v1',
      models,
    });
    expect(put.status).toBe(200);
  }
  await gateway.admin('PUT', '/admin/v1/models/gpt-a', { aliases: ['gpt-latest'], ownedBy: 'acme' });
});

afterAll(async () => {
  await gateway?.close();
});

const ids = (body: any): string[] => body.data.map((model: { id: string }) => model.id);

describe('authentication on /v1', () => {
  it('refuses a request without a key with 401 invalid_api_key and a request id', async () => {
    const response = await gateway.request('GET', '/v1/models');

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.body).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
  });

  it.each([
    ['an unknown key', `sk-${'x'.repeat(48)}`],
    ['a malformed key', 'not-a-key'],
    ['an empty bearer', ''],
  ])('refuses %s with 401', async (_name, key) => {
    const response = await gateway.request('GET', '/v1/models', { headers: { authorization: `Bearer ${key}` } });

    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
  });

  it('refuses a revoked key, an expired key and a key of a disabled account', async () => {
    const revoked = await gateway.createAccountWithKey();
    await gateway.admin('DELETE', `/admin/v1/keys/${revoked.keyId}`);
    const expired = await gateway.createAccountWithKey();
    await gateway.admin('PATCH', `/admin/v1/keys/${expired.keyId}`, {
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const disabled = await gateway.createAccountWithKey();
    await gateway.admin('PATCH', `/admin/v1/accounts/${disabled.account.id}`, { status: 'disabled' });

    for (const { key } of [revoked, expired, disabled]) {
      const response = await gateway.request('GET', '/v1/models', { key });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
    }
  });

  it('accepts the vendor key carriers on /v1/models', async () => {
    const { key } = await gateway.createAccountWithKey();

    for (const headers of [{ 'x-api-key': key }, { 'x-goog-api-key': key }] as Record<string, string>[]) {
      expect((await gateway.request('GET', '/v1/models', { headers })).status).toBe(200);
    }
    expect((await gateway.request('GET', `/v1/models?key=${key}`)).status).toBe(200);
  });
});

describe('GET /v1/models', () => {
  itInProcess('a shared gateway also lists the models of other runs')(
    'lists every configured model, aliases included, for an account without a list (the built-in demo channel no longer serves)',
    async () => {
      const { key } = await gateway.createAccountWithKey();

      const response = await gateway.request('GET', '/v1/models', { key });

      expect(response.status).toBe(200);
      expect(response.body.object).toBe('list');
      expect(ids(response.body)).toEqual(['claude-c', 'gpt-a', 'gpt-b', 'gpt-latest']);
      expect(response.body.data.find((model: any) => model.id === 'gpt-a')).toMatchObject({
        object: 'model',
        owned_by: 'acme',
        created: expect.any(Number),
      });
    },
  );

  it('lists only the intersection of the account list and the key list', async () => {
    const { key } = await gateway.createAccountWithKey(
      { models: ['gpt-a', 'claude-c', 'not-configured'] },
      { models: ['claude-c', 'gpt-b'] },
    );

    const response = await gateway.request('GET', '/v1/models', { key });

    expect(ids(response.body)).toEqual(['claude-c']);
  });

  it('answers in the Anthropic format for x-api-key with anthropic-version', async () => {
    const { key } = await gateway.createAccountWithKey({ models: ['gpt-a', 'gpt-b'] });

    const response = await gateway.request('GET', '/v1/models', {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    });

    // gpt-latest is an alias of gpt-a, so the account may use it too.
    expect(response.body).toEqual({
      data: [
        {
          type: 'model',
          id: 'gpt-a',
          display_name: 'gpt-a',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
        { type: 'model', id: 'gpt-b', display_name: 'gpt-b', created_at: expect.any(String) },
        { type: 'model', id: 'gpt-latest', display_name: 'gpt-latest', created_at: expect.any(String) },
      ],
      has_more: false,
      first_id: 'gpt-a',
      last_id: 'gpt-latest',
    });
  });

  it('answers in the Google format for x-goog-api-key and for ?key=', async () => {
    const { key } = await gateway.createAccountWithKey({ models: ['gpt-b'] });

    const byHeader = await gateway.request('GET', '/v1/models', { headers: { 'x-goog-api-key': key } });
    const byQuery = await gateway.request('GET', `/v1/models?key=${encodeURIComponent(key)}`);

    expect(byHeader.body).toEqual(byQuery.body);
    expect(byHeader.body.models).toEqual([
      expect.objectContaining({
        name: 'models/gpt-b',
        displayName: 'gpt-b',
        supportedGenerationMethods: expect.arrayContaining(['generateContent']),
      }),
    ]);
  });

  it('drops a model from the list once its only channel is disabled, and answers it 503 no_channel', async () => {
    const { key } = await gateway.createAccountWithKey({ models: ['claude-c'] });
    await gateway.admin('PUT', '/admin/v1/channels/beta', { type: 'anthropic', models: ['claude-c'], enabled: false });

    const response = await gateway.request('GET', '/v1/models', { key });
    const chat = await gateway.request('POST', '/v1/chat/completions', {
      key,
      body: { model: 'claude-c', messages: [{ role: 'user', content: 'hello' }] },
    });
    await gateway.admin('PUT', '/admin/v1/channels/beta', { type: 'anthropic', models: ['claude-c'] });

    expect(ids(response.body)).toEqual([]);
    expect(chat.status).toBe(503);
    expect(chat.body.error).toMatchObject({ type: 'upstream_error', code: 'no_channel' });
  });
});

describe('paths and methods', () => {
  it('answers 404 unknown_url for an unknown path and for a path without /v1', async () => {
    for (const path of ['/v1/nothing-here', '/models', '/chat/completions', '/']) {
      const response = await gateway.request('GET', path);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('unknown_url');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('answers 405 method_not_allowed with Allow for a wrong method on a served path', async () => {
    const response = await gateway.request('DELETE', '/v1/models');

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.body.error.code).toBe('method_not_allowed');
  });

  it('answers 413 payload_too_large for a body over 10 MB', async () => {
    const { key } = await gateway.createAccountWithKey();
    const huge = JSON.stringify({
      model: 'gpt-a',
      messages: [{ role: 'user', content: 'x'.repeat(10 * 1024 * 1024 + 1) }],
    });

    const response = await gateway.request('POST', '/v1/chat/completions', { key, body: huge });

    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  it('answers GET /health with 200', async () => {
    const response = await gateway.request('GET', '/health');

    expect(response.status).toBe(200);
  });
});
