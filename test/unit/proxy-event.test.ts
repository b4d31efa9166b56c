import type { IncomingMessage } from 'node:http';
import { buildProxyEvent } from '../../infra/local/proxy-event.js';
import { parseRequestTarget } from '../../infra/local/request-target.js';

/** The local runtime's API Gateway event, as a REST API (payload 1.0) would send it. */
describe('the proxy event of a request', () => {
  const eventOf = (rawHeaders: string[], target = '/v1/messages') =>
    buildProxyEvent({
      request: {
        method: 'POST',
        httpVersion: '1.1',
        rawHeaders,
        headers: { 'content-type': 'application/json' },
        socket: { remoteAddress: '127.0.0.1' },
      } as unknown as IncomingMessage,
      target: parseRequestTarget(target),
      body: Buffer.from('{}'),
      resource: '/v1/messages',
      pathParameters: null,
      requestId: 'request-1',
    });

  it('keeps every value of a repeated header in order, and the last one in headers', () => {
    const event = eventOf([
      'anthropic-beta',
      'one-2025-01-01',
      'X-Api-Key',
      'sk-x',
      'anthropic-beta',
      'two-2025-01-01,three-2025-01-01',
    ]);
    expect(event.headers).toEqual({ 'anthropic-beta': 'two-2025-01-01,three-2025-01-01', 'X-Api-Key': 'sk-x' });
    expect(event.multiValueHeaders).toEqual({
      'anthropic-beta': ['one-2025-01-01', 'two-2025-01-01,three-2025-01-01'],
      'X-Api-Key': ['sk-x'],
    });
    // A member of the event as API Gateway sends it, in its serialization too.
    expect(JSON.parse(JSON.stringify(event)).multiValueHeaders).toEqual(event.multiValueHeaders);
  });

  it('takes header and query names from the client as plain entries', () => {
    const event = eventOf(['__proto__', 'a', 'constructor', 'b'], '/v1/messages?__proto__=1&toString=2&toString=3');
    expect(Object.keys(event.headers)).toEqual(['__proto__', 'constructor']);
    expect(event.multiValueHeaders.__proto__).toEqual(['a']);
    expect(event.queryStringParameters).toEqual({ ['__proto__']: '1', toString: '3' });
    expect(event.multiValueQueryStringParameters?.toString).toEqual(['2', '3']);
  });

  it('has no query maps without a query', () => {
    const event = eventOf([]);
    expect(event.queryStringParameters).toBeNull();
    expect(event.multiValueQueryStringParameters).toBeNull();
    expect(event.multiValueHeaders).toEqual({});
  });
});
