import { InvalidRequestHeadError, requestHead } from '../../functions/shared/http/client/request-head.js';

/**
 * The request line and Host the client writes come from the gateway's own URLs and methods, which
 * cannot hold a break; they are still refused like a header is, where they could, without the value
 * in the error (a URL can carry a key in its query).
 */
const SECRET = 'sk-live-0123456789abcdef';
const parts = { method: 'POST', target: '/v1/chat/completions', host: 'api.example.com', headers: {} };

describe('requestHead', () => {
  it('writes the request line, Host, keep-alive and the length, ending with the blank line', () => {
    expect(requestHead(parts, 2)).toBe(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: api.example.com\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\n',
    );
  });

  it.each([
    ['a method that is not a token', { method: `GET /${SECRET} HTTP/1.1\r\n` }],
    ['an empty method', { method: '' }],
    ['a target with a space', { target: `/v1?key=${SECRET} HTTP/1.1` }],
    ['a target with a line break', { target: `/v1?key=${SECRET}\r\nx-injected: yes` }],
    ['an empty target', { target: '' }],
    ['a host with a line break', { host: `api.example.com\r\nx-key: ${SECRET}` }],
  ])('refuses %s, without telling it', (_case, change) => {
    let thrown: unknown;
    try {
      requestHead({ ...parts, ...change }, undefined);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidRequestHeadError);
    expect(String(thrown)).not.toContain(SECRET);
  });
});
