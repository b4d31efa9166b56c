import { CORS_ORIGINS_VARIABLE } from '../../functions/shared/http/cors-policy.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** With GATEWAY_CORS_ORIGINS set, browser pages of those origins may call the gateway. */
const ALLOWED = 'https://app.example';
const OTHER = 'https://elsewhere.example';

let gateway: TestGateway;
let key: string;
const saved = process.env[CORS_ORIGINS_VARIABLE];

const describe = describeInProcess("sets CORS origins in its own gateway's environment");

describe('CORS for browser clients, when enabled', () => {
  beforeAll(async () => {
    // Read when the functions start, as on Lambda: set before the first request.
    process.env[CORS_ORIGINS_VARIABLE] = `${ALLOWED}, https://admin.example`;
    gateway = await startTestGateway();
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
    if (saved === undefined) delete process.env[CORS_ORIGINS_VARIABLE];
    else process.env[CORS_ORIGINS_VARIABLE] = saved;
  });

  const preflight = (origin: string) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('answers the preflight of an allowed origin with the methods and headers the SDKs send', async () => {
    const response = await preflight(ALLOWED);

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = response.headers.get('access-control-allow-headers')!.split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-api-key', 'x-stainless-os']));
  });

  it('leaves the preflight of another origin without an allowance', async () => {
    const response = await preflight(OTHER);

    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets the page read an answer and its request id', async () => {
    const response = await gateway.request('GET', '/v1/models', { key, headers: { origin: ALLOWED } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(response.headers.get('vary')).toContain('origin');
  });

  it('lets the page read an error envelope too', async () => {
    const response = await gateway.request('POST', '/v1/chat/completions', {
      headers: { origin: ALLOWED },
      body: { model: 'demo-1', messages: [] },
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.body.error.code).toBe('invalid_api_key');
  });

  it('lets the page read a streamed answer', async () => {
    const response = await gateway.request('POST', '/v1/chat/completions', {
      key,
      headers: { origin: ALLOWED },
      body: { model: 'demo-1', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.text).toContain('data: [DONE]');
  });

  it('gives no allowance to another origin, nor to a request from no page', async () => {
    const other = await gateway.request('GET', '/v1/models', { key, headers: { origin: OTHER } });
    const server = await gateway.request('GET', '/v1/models', { key });

    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
  });
});
