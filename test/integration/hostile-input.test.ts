import { isEnvelopeOfPath, pathOfTarget } from '../support/error-envelopes.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';

/**
 * Inputs that once reached a 500: names that are also Object.prototype's, malformed percent-encoding,
 * JSON nested thousands of levels deep, numbers beyond what a field can hold, contradictory ranges.
 * Each must be a 4xx in the path's own envelope, with a request id.
 */
let gateway: TestGateway;
let userKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  await addOfflineDemoChannel(gateway);
  ({ key: userKey } = await gateway.createAccountWithKey());
});

afterAll(async () => {
  await gateway?.close();
});

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const expectClientError = (target: string, response: HttpResult) => {
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  expect(isEnvelopeOfPath(pathOfTarget(target), response.status, response.body)).toBe(true);
};

const expectAnswered = (target: string, response: HttpResult) => {
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  if (response.status >= 400) expect(isEnvelopeOfPath(pathOfTarget(target), response.status, response.body)).toBe(true);
};

const chatBody = { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] };

describe('names that are also Object.prototype properties', () => {
  it.each(PROTOTYPE_NAMES)('takes a header named %s as any other header', async (name) => {
    for (const path of ['/v1/models', '/v1/messages', '/v1beta/models', '/admin/v1/accounts', '/nowhere']) {
      const response = await gateway.request('GET', path, { key: userKey, headers: { [name]: 'x' } });
      expectAnswered(path, response);
    }
    const chat = await gateway.request('POST', '/v1/chat/completions', {
      key: userKey,
      headers: { [name]: 'x' },
      body: chatBody,
    });
    expect(chat.status).toBe(200);
  });

  it.each(PROTOTYPE_NAMES)('takes a query parameter named %s as any other', async (name) => {
    for (const target of [
      `/v1/models?${name}=1`,
      `/admin/v1/usage?${name}=1`,
      `/v1beta/models?${name}=1&key=${userKey}`,
    ]) {
      const response = await gateway.request('GET', target, {
        key: target.startsWith('/admin') ? gateway.adminKey : userKey,
      });
      expectAnswered(target, response);
    }
  });

  it.each(PROTOTYPE_NAMES)('takes %s as a path parameter', async (name) => {
    for (const target of [
      `/admin/v1/accounts/${name}`,
      `/admin/v1/keys/${name}`,
      `/admin/v1/channels/${name}`,
      `/admin/v1/models/${name}`,
    ]) {
      expectClientError(target, await gateway.admin('GET', target));
    }
    const gemini = `/v1beta/models/${name}:generateContent`;
    expectClientError(
      gemini,
      await gateway.request('POST', gemini, { key: userKey, body: { contents: [{ parts: [{ text: 'hi' }] }] } }),
    );
  });

  it.each(PROTOTYPE_NAMES)('takes %s as a key of a JSON body', async (name) => {
    const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;
    const bodies: [string, string][] = [
      ['/v1/chat/completions', `{"model":"demo-1","messages":[{"role":"user","content":"hi"}],"${name}":{"a":1}}`],
      [
        '/v1/chat/completions',
        `{"model":"demo-1","messages":[{"role":"user","content":"hi"}],"metadata":{"${name}":"x"}}`,
      ],
      [
        '/v1/messages',
        `{"model":"demo-1","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"metadata":{"${name}":"x"}}`,
      ],
      ['/admin/v1/channels/proto-test', `{"type":"demo","models":["demo-1"],"modelMap":{"${name}":"x"}}`],
    ];
    for (const [path, text] of bodies) {
      expect(() => parsed(text)).not.toThrow();
      const key = path.startsWith('/admin') ? gateway.adminKey : userKey;
      const response = await gateway.request(path.startsWith('/admin') ? 'PUT' : 'POST', path, { key, body: text });
      expectAnswered(path, response);
    }
  });
});

describe('malformed percent-encoding', () => {
  it.each([
    '/v1/%zz',
    '/v1/models/%E0%A4%A',
    '/admin/v1/accounts/%E0%A4%A',
    '/v1/messages/%zz',
    '/v1beta/models/%C0:generateContent',
    '/%',
  ])('answers the path %s with a 4xx in its envelope', async (target) => {
    expectClientError(target, await gateway.request('POST', target, { key: userKey, body: chatBody }));
    expectClientError(target, await gateway.admin('GET', target));
  });

  it.each(['/v1/models?key=%E0%A4%A', '/v1/models?%zz=1', '/admin/v1/usage?from=%E0%A4%A', '/v1beta/models?key=%'])(
    'answers the query of %s without a 5xx',
    async (target) => {
      expectAnswered(
        target,
        await gateway.request('GET', target, { key: target.startsWith('/admin') ? gateway.adminKey : userKey }),
      );
    },
  );
});

describe('JSON nested thousands of levels deep', () => {
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const deepArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it.each([
    [
      '/v1/chat/completions',
      (inner: string) => `{"model":"demo-1","messages":[{"role":"user","content":"hi"}],"metadata":${inner}}`,
    ],
    [
      '/v1/chat/completions',
      (inner: string) =>
        `{"model":"demo-1","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${inner}}}]}`,
    ],
    [
      '/v1/messages',
      (inner: string) =>
        `{"model":"demo-1","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${inner}}]}`,
    ],
    [
      '/v1/messages/count_tokens',
      (inner: string) => `{"model":"demo-1","messages":[{"role":"user","content":${inner}}]}`,
    ],
    [
      '/v1/responses',
      (inner: string) =>
        `{"model":"demo-1","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":${inner}}}}`,
    ],
    [
      '/v1beta/models/demo-1:generateContent',
      (inner: string) =>
        `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${inner}}]}]}`,
    ],
    ['/v1/embeddings', (inner: string) => `{"model":"demo-1","input":${inner}}`],
    ['/admin/v1/apply', (inner: string) => `{"channels":${inner}}`],
  ])('refuses a body on %s with 400 invalid_json before walking it', async (path, wrap) => {
    for (const inner of [deep(20_000), deepArrays(200_000)]) {
      const key = path.startsWith('/admin') ? gateway.adminKey : userKey;
      const response = await gateway.request('POST', path, { key, body: wrap(inner) });
      expectClientError(path, response);
      expect(response.status).toBe(400);
      expect(response.text).toContain('nested deeper than 128 levels');
    }
  });

  it('still serves a request nested well inside the limit', async () => {
    const response = await gateway.request('POST', '/v1/chat/completions', {
      key: userKey,
      body: `{"model":"demo-1","messages":[{"role":"user","content":"hi"}],"metadata":{"a":"b"},"tools":[{"type":"function","function":{"name":"f","parameters":${deep(60)}}}]}`,
    });
    expect(response.status).toBe(200);
  });
});

describe('numbers out of range in admin bodies', () => {
  it.each([
    ['POST', '/admin/v1/accounts', { name: 'n', quota: { limit: 1e300 } }, 'quota.limit'],
    ['POST', '/admin/v1/accounts', { name: 'n', quota: { limit: -1 } }, 'quota.limit'],
    ['POST', '/admin/v1/accounts', { name: 'n', quota: { limit: 'NaN' } }, 'quota.limit'],
    ['POST', '/admin/v1/accounts', { name: 'n', rateLimit: { rpm: 1e300 } }, 'rateLimit.rpm'],
    ['POST', '/admin/v1/accounts', { name: 'n', rateLimit: { rpm: 1.5 } }, 'rateLimit.rpm'],
    ['POST', '/admin/v1/accounts', { name: 'n', rateLimit: { tpm: -1 } }, 'rateLimit.tpm'],
    ['POST', '/admin/v1/accounts', { name: 'n', rateLimit: { tpm: 'Infinity' } }, 'rateLimit.tpm'],
    ['PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 1e300, outputPerMTok: 1 } }, 'pricing.inputPerMTok'],
    ['PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 1, outputPerMTok: -0.5 } }, 'pricing.outputPerMTok'],
    // Below what the store can hold (1e-130) and what the gateway counts (1e-12 USD).
    ['POST', '/admin/v1/accounts', { name: 'n', quota: { limit: 8e-323 } }, 'quota.limit'],
    ['POST', '/admin/v1/accounts', { name: 'n', quota: { limit: 1e-13 } }, 'quota.limit'],
    ['PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 1e-200, outputPerMTok: 1 } }, 'pricing.inputPerMTok'],
    [
      'PUT',
      '/admin/v1/models/demo-1',
      { pricing: { inputPerMTok: 1, outputPerMTok: 1, cacheWritePerMTok: 5e-324 } },
      'pricing.cacheWritePerMTok',
    ],
    ['PUT', '/admin/v1/channels/range-test', { type: 'demo', models: ['demo-1'], priority: 1e300 }, 'priority'],
    ['PUT', '/admin/v1/channels/range-test', { type: 'demo', models: ['demo-1'], priority: 0.5 }, 'priority'],
    ['PUT', '/admin/v1/channels/range-test', { type: 'demo', models: ['demo-1'], weight: 1e300 }, 'weight'],
    [
      'PUT',
      '/admin/v1/channels/range-test',
      { type: 'demo', models: ['demo-1'], timeouts: { connectMs: 1e300 } },
      'timeouts.connectMs',
    ],
  ] as const)('answers %s %s with a value beyond the field with 400 naming it', async (method, path, body, param) => {
    const response = await gateway.admin(method, path, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('keeps a quota written as 1e300 in JSON text out of the store', async () => {
    const response = await gateway.request('POST', '/admin/v1/accounts', {
      key: gateway.adminKey,
      body: '{"name":"n","quota":{"limit":1e300}}',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('quota.limit');
  });

  it('answers a number too large for a double (1e999) as a value out of range', async () => {
    const response = await gateway.request('POST', '/admin/v1/accounts', {
      key: gateway.adminKey,
      body: '{"name":"n","rateLimit":{"rpm":1e999}}',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('rateLimit.rpm');
  });
});

describe('usage queries', () => {
  it("answers a range whose 'from' is after its 'to' with 400 naming 'from'", async () => {
    for (const target of [
      '/admin/v1/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      '/admin/v1/usage?accountId=acct&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const response = await gateway.admin('GET', target);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_value', param: 'from' });
    }
  });

  it('accepts a range of one instant', async () => {
    const response = await gateway.admin('GET', '/admin/v1/usage?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(response.status).toBe(200);
  });
});

describe('percent-encoded paths', () => {
  it('serves a model id with "/" and ":" percent-encoded in the admin path', async () => {
    const target = '/admin/v1/models/org%2Ffamily%3Amodel-1';
    const created = await gateway.admin('PUT', target, { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
    expect(created.status).toBe(200);
    const read = await gateway.admin('GET', target);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe('org/family:model-1');
    expect((await gateway.admin('DELETE', target)).status).toBeLessThan(300);
  });

  it("serves a Gemini method whose ':' is percent-encoded, under /v1beta and /v1", async () => {
    for (const target of ['/v1beta/models/demo-1%3AgenerateContent', '/v1/models/demo-1%3AgenerateContent']) {
      const response = await gateway.request('POST', target, {
        headers: { 'x-goog-api-key': userKey },
        body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      });
      expect(response.status).toBe(200);
      expect(response.body.candidates).toEqual(expect.any(Array));
    }
  });

  it("refuses malformed percent-encoding in a path parameter with 400 in the path's envelope", async () => {
    for (const [target, key] of [
      ['/v1beta/models/demo-1%zz%3AgenerateContent', userKey],
      ['/admin/v1/models/bad%E0%A4', gateway.adminKey],
    ] as const) {
      const response = await gateway.request(target.startsWith('/admin') ? 'GET' : 'POST', target, {
        headers: { 'x-goog-api-key': key, authorization: `Bearer ${key}` },
        body: target.startsWith('/admin') ? undefined : { contents: [{ parts: [{ text: 'hi' }] }] },
      });
      expectClientError(target, response);
      expect(response.status).toBe(400);
    }
  });
});
