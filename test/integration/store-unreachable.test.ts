import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { listenDynalite } from '../../infra/local/dynalite-server.js';
import { startLocalGateway, type LocalGateway } from '../../infra/local/local-gateway.js';

/**
 * While the store cannot be reached, a request that needs it (every authenticated one: its key is
 * read from the store) is answered at once with a 503 the SDKs retry, in its path's own envelope:
 * not the 500 that says the gateway has a bug, and not a wait until the function's timeout.
 */

let gateway: LocalGateway;
const key = generateApiKey().key;

beforeAll(async () => {
  const external = await listenDynalite('memory');
  gateway = await startLocalGateway({
    port: 0,
    dataDir: 'memory',
    dynamodbEndpoint: `http://127.0.0.1:${external.port}`,
    adminKey: generateApiKey().key,
  });
  await external.close();
});

afterAll(async () => {
  await gateway.close();
});

const chatBody = JSON.stringify({ model: 'any-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
const message = 'The gateway cannot reach its store: it cannot serve requests until the store is back.';

const requests = [
  {
    name: 'OpenAI chat completions',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}` },
    body: chatBody,
    envelope: { error: { message, type: 'server_error', param: null, code: 'store_unavailable' } },
  },
  {
    name: 'the model list',
    path: '/v1/models',
    headers: { authorization: `Bearer ${key}` },
    envelope: { error: { message, type: 'server_error', param: null, code: 'store_unavailable' } },
  },
  {
    name: 'Anthropic messages',
    path: '/v1/messages',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: chatBody,
    envelope: { type: 'error', error: { type: 'api_error', message } },
  },
  {
    name: 'Gemini generateContent',
    path: `/v1beta/models/any-model:generateContent?key=${key}`,
    headers: {},
    body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    envelope: { error: { code: 503, message, status: 'UNAVAILABLE' } },
  },
];

describe('a request while the store cannot be reached', () => {
  it.each(requests)(
    '$name: a 503 in its own envelope, to retry after a second',
    async ({ path, headers, body, envelope }) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body }),
      });

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(await response.json()).toEqual(envelope);
    },
  );
});
