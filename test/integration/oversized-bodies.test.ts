import { isEnvelopeOfPath } from '../support/error-envelopes.js';
import { upload } from '../support/raw-http.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * A body over 10 MB gets the 413 envelope, and the client reads it: announced by Content-Length
 * (answered before the body is read) or sent chunked (answered when it passes the limit), the
 * upload is not cut with a reset under the client.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const ELEVEN_MB = 11 * 1024 * 1024;

describe.each([
  ['with a Content-Length', false],
  ['chunked', true],
])('an 11 MB upload %s', (_name, chunked) => {
  it.each([
    '/v1/chat/completions',
    '/v1/messages',
    '/v1beta/models/demo-1:generateContent',
    '/admin/v1/apply',
    '/v1/nowhere',
  ])('to %s is answered with a 413 envelope the client receives', async (path) => {
    const result = await upload(`${gateway.url}${path}`, ELEVEN_MB, { chunked });

    expect(result.error).toBeUndefined();
    expect(result.status).toBe(413);
    expect(result.headers!['x-request-id']).toMatch(/^[\w-]{8,}$/);
    expect(isEnvelopeOfPath(path, 413, JSON.parse(result.text!))).toBe(true);
  });
});

describe('a body over the limit sent with fetch', () => {
  it.each([
    ['a buffer (Content-Length)', () => Buffer.alloc(ELEVEN_MB, 0x20)],
    [
      'a stream (chunked)',
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            const piece = new Uint8Array(1024 * 1024).fill(0x20);
            for (let sent = 0; sent < ELEVEN_MB; sent += piece.length) controller.enqueue(piece);
            controller.close();
          },
        }),
    ],
  ])('as %s gets the 413 in the Anthropic envelope on /v1/messages', async (_name, body) => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(),
      duplex: 'half',
    } as RequestInit);

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: expect.any(String) },
    });
  });
});

it('serves the next request normally after refusing an upload', async () => {
  await upload(`${gateway.url}/v1/chat/completions`, ELEVEN_MB, { chunked: true });
  const response = await gateway.request('GET', '/health');
  expect(response.status).toBe(200);
});
