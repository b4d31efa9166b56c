import { isEnvelopeOfPath } from '../support/error-envelopes.js';
import { parseRawAnswer, sendRawBytes } from '../support/raw-http.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Requests node's HTTP parser refuses get a JSON envelope with a request id on the socket, not a bare
 * close: 431 for headers over the size limit, 400 for anything else malformed.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const chunkedPost = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body}`;

describe('malformed HTTP on the local server', () => {
  it.each([
    ['a request line that is not HTTP', 'NOT A REQUEST LINE\r\n\r\n', '/', 400],
    ['an unknown HTTP version', 'GET /v1/models HTTP/7.1\r\nHost: gateway\r\n\r\n', '/v1/models', 400],
    [
      'a control byte in a header name',
      'GET /v1/messages HTTP/1.1\r\nHost: gateway\r\nBad\u0001Name: x\r\n\r\n',
      '/v1/messages',
      400,
    ],
    [
      'a header line without a colon',
      'GET /v1beta/models HTTP/1.1\r\nHost: gateway\r\nno colon here\r\n\r\n',
      '/v1beta/models',
      400,
    ],
    [
      'both Content-Length and chunked',
      'POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      '/v1/chat/completions',
      400,
    ],
    [
      'a chunk size that is not hexadecimal',
      chunkedPost('/v1/chat/completions', 'zz\r\n{}\r\n0\r\n\r\n'),
      '/v1/chat/completions',
      400,
    ],
    ['a chunk longer than its size', chunkedPost('/v1/messages', '2\r\n{"model":1}\r\n0\r\n\r\n'), '/v1/messages', 400],
    [
      'headers over the size limit',
      `GET /v1beta/models HTTP/1.1\r\nHost: gateway\r\nX-Filler: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
      '/v1beta/models',
      431,
    ],
    [
      'a request line over the size limit',
      `GET /v1/${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: gateway\r\n\r\n`,
      '/v1/x',
      431,
    ],
    [
      'an unknown method on a percent-encoded Gemini path',
      'FUZZ /v1/models/demo-1%3AgenerateContent?key=x HTTP/1.1\r\nHost: gateway\r\n\r\n',
      '/v1/models/demo-1:generateContent',
      400,
    ],
    [
      'an unknown HTTP version on a percent-encoded Anthropic path',
      'POST /v1/%6Dessages HTTP/7.1\r\nHost: gateway\r\n\r\n',
      '/v1/messages',
      400,
    ],
    [
      'a request line with malformed percent-encoding',
      'FUZZ /v1beta/models/%zz HTTP/1.1\r\nHost: gateway\r\n\r\n',
      '/v1beta/models/%zz',
      400,
    ],
    ['an HTTP/1.1 request without Host', 'GET /v1/models HTTP/1.1\r\n\r\n', '/v1/models', 400],
    [
      'an HTTP/1.1 request without Host on an Anthropic path',
      'POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}',
      '/v1/messages',
      400,
    ],
    [
      'an Expect other than 100-continue',
      'POST /v1beta/models/demo-1:generateContent HTTP/1.1\r\nHost: gateway\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
      '/v1beta/models/demo-1:generateContent',
      417,
    ],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', '/', 405],
  ])('answers %s with a JSON envelope', async (_name, bytes, path, status) => {
    const { raw } = await sendRawBytes(gateway.url, bytes);
    const answer = parseRawAnswer(raw);

    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-request-id']).toMatch(/^[\w-]{8,}$/);
    expect(isEnvelopeOfPath(path, status, answer.body)).toBe(true);
  });

  it.each([
    [
      'headers over the size limit',
      `HEAD /v1/models HTTP/1.1\r\nHost: gateway\r\nX-Filler: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
      431,
    ],
    ['an unknown HTTP version', 'HEAD /v1/models HTTP/7.1\r\nHost: gateway\r\n\r\n', 400],
  ])('answers a HEAD request with %s by its head alone', async (_name, bytes, status) => {
    const { raw } = await sendRawBytes(gateway.url, bytes);
    const answer = parseRawAnswer(raw);

    expect(answer.status).toBe(status);
    expect(Number(answer.headers['content-length'])).toBeGreaterThan(0);
    expect(answer.body).toBeUndefined();
  });

  it('gives each malformed request its own request id', async () => {
    const first = parseRawAnswer((await sendRawBytes(gateway.url, 'BAD\r\n\r\n')).raw);
    const second = parseRawAnswer((await sendRawBytes(gateway.url, 'BAD\r\n\r\n')).raw);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('keeps serving well-formed requests', async () => {
    await sendRawBytes(gateway.url, 'NOT A REQUEST LINE\r\n\r\n');
    expect((await gateway.request('GET', '/health')).status).toBe(200);
  });
});
