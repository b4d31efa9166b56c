import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway.close();
});

const expectError = (result: HttpResult, status: number, error: Record<string, unknown>) => {
  expect(result.status).toBe(status);
  expect(result.headers.get('content-type')).toContain('application/json');
  expect(result.headers.get('x-request-id')).toBeTruthy();
  expect(result.body.error).toMatchObject(error);
};

describe('accounts', () => {
  test('an account is created, read, listed and patched', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', {
      name: 'Research',
      models: ['demo-1'],
      quota: { limit: 25 },
      rateLimit: { rpm: 60 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^acct_/),
      name: 'Research',
      models: ['demo-1'],
      quota: { limit: 25, used: 0 },
      // The older quota reads as a total budget.
      budget: {
        limitUsd: 25,
        period: 'total',
        alertAt: [0.8, 1],
        spentUsd: 0,
        remainingUsd: 25,
        periodStart: null,
        resetsAt: null,
      },
      rateLimit: { rpm: 60 },
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id: string = created.body.id;

    const read = await gateway.admin('GET', `/admin/v1/accounts/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const listed = await gateway.admin('GET', '/admin/v1/accounts');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual(created.body);

    const patched = await gateway.admin('PATCH', `/admin/v1/accounts/${id}`, {
      name: 'Research and Development',
      quota: { limit: null },
      models: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      name: 'Research and Development',
      models: null,
      quota: { limit: null, used: 0 },
      budget: null,
      rateLimit: { rpm: 60 },
      createdAt: created.body.createdAt,
    });
  });

  test('an account with no optional fields has every model, no quota and no rate limit', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', { name: 'Plain' });
    expect(created.body).toMatchObject({ models: null, quota: { limit: null, used: 0 }, rateLimit: null });
  });

  test('an unknown account is a 404 not_found', async () => {
    expectError(await gateway.admin('GET', '/admin/v1/accounts/acct_missing'), 404, { code: 'not_found' });
    expectError(await gateway.admin('PATCH', '/admin/v1/accounts/acct_missing', { name: 'x' }), 404, {
      code: 'not_found',
    });
  });

  test('a misspelt field is a 400 naming it', async () => {
    expectError(await gateway.admin('POST', '/admin/v1/accounts', { name: 'x', qouta: { limit: 1 } }), 400, {
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'qouta',
    });
  });

  test('a body that is not JSON is a 400 invalid_json', async () => {
    expectError(await gateway.admin('POST', '/admin/v1/accounts', '{"name": '), 400, { code: 'invalid_json' });
  });

  test('a disabled account cannot use its keys', async () => {
    const { account, key } = await gateway.createAccountWithKey();
    expect((await gateway.request('GET', '/v1/models', { key })).status).toBe(200);

    await gateway.admin('PATCH', `/admin/v1/accounts/${account.id}`, { status: 'disabled' });

    expectError(await gateway.request('GET', '/v1/models', { key }), 401, { code: 'invalid_api_key' });
  });
});

describe('keys', () => {
  test('a key is issued with its plaintext once, and never shown again', async () => {
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'Keys' })).body;

    const issued = await gateway.admin('POST', '/admin/v1/keys', {
      accountId: account.id,
      name: 'ci',
      models: ['demo-1'],
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk-[0-9A-Za-z]{40,}$/),
      accountId: account.id,
      name: 'ci',
      role: 'user',
      expiresAt: null,
      models: ['demo-1'],
      rateLimit: null,
      status: 'active',
    });
    const { id, key } = issued.body;
    expect(issued.body.prefix).toBe(key.slice(0, 10));
    expect(issued.body).not.toHaveProperty('keyHash');

    const read = await gateway.admin('GET', `/admin/v1/keys/${id}`);
    const listed = await gateway.admin('GET', `/admin/v1/keys?accountId=${account.id}`);
    expect(read.status).toBe(200);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([read.body]);
    for (const result of [read, listed]) {
      expect(result.text).not.toContain(key);
      expect(result.text).not.toContain('keyHash');
      expect(result.text).not.toContain('"key"');
    }
  });

  test('a key for an unknown account is a 404', async () => {
    expectError(await gateway.admin('POST', '/admin/v1/keys', { accountId: 'acct_missing' }), 404, {
      code: 'not_found',
    });
  });

  test('listing keys needs an account id', async () => {
    expectError(await gateway.admin('GET', '/admin/v1/keys'), 400, { code: 'missing_required', param: 'accountId' });
  });

  test('a key is patched', async () => {
    const { keyId } = await gateway.createAccountWithKey();

    const patched = await gateway.admin('PATCH', `/admin/v1/keys/${keyId}`, { name: 'renamed', rateLimit: { rpm: 5 } });

    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: keyId, name: 'renamed', rateLimit: { rpm: 5 }, status: 'active' });
  });

  test('a revoked key answers 401 at once, and stays listed as revoked', async () => {
    const { account, key, keyId } = await gateway.createAccountWithKey();
    expect((await gateway.request('GET', '/v1/models', { key })).status).toBe(200);

    const revoked = await gateway.admin('DELETE', `/admin/v1/keys/${keyId}`);

    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: keyId, status: 'revoked', revokedAt: expect.any(String) });
    expectError(await gateway.request('GET', '/v1/models', { key }), 401, { code: 'invalid_api_key' });
    const listed = await gateway.admin('GET', `/admin/v1/keys?accountId=${account.id}`);
    expect(listed.body.data).toEqual([revoked.body]);
  });

  test('revoking a revoked key again answers the same, and patching it is a 409', async () => {
    const { keyId } = await gateway.createAccountWithKey();
    const first = await gateway.admin('DELETE', `/admin/v1/keys/${keyId}`);

    const second = await gateway.admin('DELETE', `/admin/v1/keys/${keyId}`);

    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expectError(await gateway.admin('PATCH', `/admin/v1/keys/${keyId}`, { name: 'x' }), 409, { code: 'conflict' });
  });

  test('an unknown key id is a 404', async () => {
    expectError(await gateway.admin('GET', '/admin/v1/keys/key_missing'), 404, { code: 'not_found' });
    expectError(await gateway.admin('DELETE', '/admin/v1/keys/key_missing'), 404, { code: 'not_found' });
  });

  test('a key cannot be issued already expired', async () => {
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'Expiry' })).body;
    const past = new Date(Date.now() - 60_000).toISOString();

    expectError(await gateway.admin('POST', '/admin/v1/keys', { accountId: account.id, expiresAt: past }), 400, {
      code: 'invalid_value',
      param: 'expiresAt',
    });
  });

  test('patching the expiry into the past expires the key now', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const { key, keyId } = await gateway.createAccountWithKey({}, { expiresAt: inAnHour });
    expect((await gateway.request('GET', '/v1/models', { key })).status).toBe(200);

    const past = new Date(Date.now() - 1000).toISOString();
    expect((await gateway.admin('PATCH', `/admin/v1/keys/${keyId}`, { expiresAt: past })).status).toBe(200);

    expectError(await gateway.request('GET', '/v1/models', { key }), 401, { code: 'invalid_api_key' });
  });
});

describe('channels', () => {
  const upstreamSecret = 'upstream-secret-7f3a9c';

  test('a channel is put, replaced, read, listed and deleted without its key ever shown', async () => {
    const texts: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const result = await gateway.admin(method, path, body);
      texts.push(result.text);
      return result;
    };
    const channel = {
      type: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: upstreamSecret,
      models: ['gpt-4o'],
      modelMap: { 'gpt-4o': 'gpt-4o-2024-08-06' },
      priority: 5,
    };

    const created = await call('PUT', '/admin/v1/channels/upstream-a', channel);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: 'upstream-a',
      type: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      hasApiKey: true,
      models: ['gpt-4o'],
      modelMap: { 'gpt-4o': 'gpt-4o-2024-08-06' },
      endpoints: null,
      priority: 5,
      weight: 1,
      enabled: true,
      timeouts: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const { apiKey: _omitted, ...withoutKey } = channel;
    const replaced = await call('PUT', '/admin/v1/channels/upstream-a', { ...withoutKey, weight: 3 });
    expect(replaced.body).toMatchObject({ hasApiKey: true, weight: 3, createdAt: created.body.createdAt });

    const read = await call('GET', '/admin/v1/channels/upstream-a');
    expect(read.body).toEqual(replaced.body);
    const listed = await call('GET', '/admin/v1/channels');
    expect(listed.body.data).toContainEqual(replaced.body);

    const cleared = await call('PUT', '/admin/v1/channels/upstream-a', { ...withoutKey, apiKey: null });
    expect(cleared.body.hasApiKey).toBe(false);

    const deleted = await call('DELETE', '/admin/v1/channels/upstream-a');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: 'upstream-a', deleted: true });
    expectError(await call('GET', '/admin/v1/channels/upstream-a'), 404, { code: 'not_found' });
    expectError(await call('DELETE', '/admin/v1/channels/upstream-a'), 404, { code: 'not_found' });

    for (const text of texts) expect(text).not.toContain(upstreamSecret);
  });

  test('an openai channel without baseUrl is a 400 naming baseUrl', async () => {
    expectError(await gateway.admin('PUT', '/admin/v1/channels/no-url', { type: 'openai', models: ['m'] }), 400, {
      code: 'missing_required',
      param: 'baseUrl',
    });
  });

  test('an upstream key no header can carry is a 400 naming apiKey, and the key is not told back', async () => {
    for (const apiKey of [
      'sk-pasted-with-its-newline\n',
      'sk-a\r\nx-injected: 1',
      'sk-with-a-nul\u0000',
      'sk-tab\there',
      'sk-ключ',
    ]) {
      const result = await gateway.admin('PUT', '/admin/v1/channels/bad-key', {
        type: 'openai',
        baseUrl: 'https://api.example.com/v1',
        apiKey,
        models: ['m'],
      });
      expectError(result, 400, { param: 'apiKey' });
      expect(JSON.stringify(result.body)).not.toContain('sk-');
    }
    expectError(await gateway.admin('GET', '/admin/v1/channels/bad-key'), 404, { code: 'not_found' });
  });

  test('a malformed channel id is a 400 naming id', async () => {
    expectError(await gateway.admin('PUT', '/admin/v1/channels/bad%20id', { type: 'demo', models: ['m'] }), 400, {
      code: 'invalid_value',
      param: 'id',
    });
  });
});

describe('models', () => {
  test('model settings are put, read, listed and deleted', async () => {
    const put = await gateway.admin('PUT', '/admin/v1/models/settings-only', {
      pricing: { inputPerMTok: 1, outputPerMTok: 2 },
      aliases: ['demo'],
      ownedBy: 'acme',
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: 'settings-only',
      pricing: { inputPerMTok: 1, outputPerMTok: 2 },
      pricingSource: 'admin',
      aliases: ['demo'],
      ownedBy: 'acme',
      reasoning: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    expect((await gateway.admin('GET', '/admin/v1/models/settings-only')).body).toEqual(put.body);
    expect((await gateway.admin('GET', '/admin/v1/models')).body.data).toContainEqual(put.body);

    const deleted = await gateway.admin('DELETE', '/admin/v1/models/settings-only');
    expect(deleted.body).toEqual({ id: 'settings-only', deleted: true });
    expectError(await gateway.admin('GET', '/admin/v1/models/settings-only'), 404, { code: 'not_found' });
    expectError(await gateway.admin('DELETE', '/admin/v1/models/settings-only'), 404, { code: 'not_found' });
  });

  test('a negative price is a 400 naming its path', async () => {
    expectError(
      await gateway.admin('PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: -1, outputPerMTok: 1 } }),
      400,
      { code: 'invalid_value', param: 'pricing.inputPerMTok' },
    );
  });
});

describe('admin access', () => {
  test('no key is a 401', async () => {
    expectError(await gateway.request('GET', '/admin/v1/accounts'), 401, { code: 'invalid_api_key' });
  });

  test('a user key is a 403 permission_error', async () => {
    const { key } = await gateway.createAccountWithKey();
    expectError(await gateway.request('GET', '/admin/v1/accounts', { key }), 403, {
      type: 'permission_error',
      code: 'forbidden',
    });
  });

  test('an admin-role key issued through the API may use the admin API', async () => {
    const { key } = await gateway.createAccountWithKey({}, { role: 'admin' });
    expect((await gateway.request('GET', '/admin/v1/accounts', { key })).status).toBe(200);
  });
});
