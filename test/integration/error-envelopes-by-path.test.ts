import { isEnvelopeOfPath } from '../support/error-envelopes.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';

/**
 * Every error on `/v1/messages*` is in Anthropic's envelope and every error on a Gemini-style path in
 * Google's, whichever part of the gateway answers: authentication, the fallback's unknown URL and
 * wrong method, the body limit, rate limits, an upstream that cannot be reached.
 */
let gateway: TestGateway;
let key: string;
let limitedKey: string;

const messagesBody = (model: string) => ({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
const geminiBody = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

beforeAll(async () => {
  gateway = await startTestGateway();
  await addOfflineDemoChannel(gateway);
  // Nothing listens on port 9: every call to this channel fails to connect.
  const put = await gateway.admin('PUT', '/admin/v1/channels/unreachable', {
    type: 'openai',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'sk-upstream-unreachable',
    models: ['unreachable-1'],
  });
  expect(put.status).toBe(200);
  ({ key } = await gateway.createAccountWithKey());
  ({ key: limitedKey } = await gateway.createAccountWithKey({ rateLimit: { rpm: 1 } }));
});

afterAll(async () => {
  await gateway?.close();
});

const expectEnvelope = (path: string, response: HttpResult, status: number) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  expect(isEnvelopeOfPath(path, status, response.body)).toBe(true);
};

describe.each([
  ['/v1/messages', (model: string) => messagesBody(model)],
  ['/v1/messages/count_tokens', (model: string) => messagesBody(model)],
  ['/v1beta/models/{model}:generateContent', () => geminiBody],
  ['/v1/models/{model}:generateContent', () => geminiBody],
])('errors on %s', (template, body) => {
  const at = (model: string) => template.replace('{model}', model);

  it('401 without a key', async () => {
    const path = at('demo-1');
    expectEnvelope(path, await gateway.request('POST', path, { body: body('demo-1') }), 401);
  });

  it('404 for a model the key may not use', async () => {
    const path = at('no-such-model');
    expectEnvelope(path, await gateway.request('POST', path, { key, body: body('no-such-model') }), 404);
  });

  it('405 for a wrong method', async () => {
    const path = at('demo-1');
    expectEnvelope(path, await gateway.request('PUT', path, { key, body: body('demo-1') }), 405);
  });

  it('413 for a body over the limit', async () => {
    const path = at('demo-1');
    const response = await gateway.request('POST', path, { key, body: `{"filler":"${'a'.repeat(11 * 1024 * 1024)}"}` });
    expectEnvelope(path, response, 413);
  });

  it('400 for a body that is not JSON', async () => {
    const path = at('demo-1');
    expectEnvelope(path, await gateway.request('POST', path, { key, body: '{"model":' }), 400);
  });
});

describe('errors only the serving endpoints give', () => {
  it.each(['/v1/messages', '/v1beta/models/unreachable-1:generateContent'])(
    '5xx on %s when the upstream cannot be reached',
    async (path) => {
      const response = await gateway.request('POST', path, {
        key,
        body: path === '/v1/messages' ? messagesBody('unreachable-1') : geminiBody,
      });
      expect(response.status).toBeGreaterThanOrEqual(500);
      expectEnvelope(path, response, response.status);
      expect(response.text).not.toContain('sk-upstream-unreachable');
    },
  );

  it.each(['/v1/messages', '/v1beta/models/demo-1:generateContent'])(
    '429 on %s when the key is over its rate limit',
    async (path) => {
      const send = () =>
        gateway.request('POST', path, {
          key: limitedKey,
          body: path === '/v1/messages' ? messagesBody('demo-1') : geminiBody,
        });
      let response = await send();
      while (response.status !== 429) {
        expect(response.status).toBe(200);
        response = await send();
      }
      expectEnvelope(path, response, 429);
    },
  );
});

describe('paths the gateway does not serve, in each family', () => {
  it.each([
    ['/v1/messages/unknown', 404],
    ['/v1/messages/count_tokens/extra', 404],
    ['/v1beta/unknown', 404],
    ['/v1beta/models/demo-1/extra', 404],
    ['/v1/unknown', 404],
    ['/unknown', 404],
  ])('answer %s with %i in that family', async (path, status) => {
    expectEnvelope(path, await gateway.request('GET', path, { key }), status);
  });
});
