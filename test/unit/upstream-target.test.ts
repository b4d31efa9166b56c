import fc from 'fast-check';
import { urlToHttpOptions } from 'node:url';
import { targetOf } from '../../functions/shared/http/client/url-target.js';

/** Parsed once and kept, an upstream URL must still give the request options Node itself derives. */
describe('the request options of an upstream URL', () => {
  it('are what Node derives from the URL: scheme, host, port, Host header, path with query, credentials', () => {
    const host = fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV6().map((address) => `[${address}]`),
    );
    const segment = fc.webSegment();
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        host,
        fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }),
        fc.array(segment, { maxLength: 4 }),
        fc.option(fc.webQueryParameters(), { nil: undefined }),
        fc.option(fc.tuple(fc.webSegment(), fc.webSegment()), { nil: undefined }),
        (scheme, hostname, port, segments, query, credentials) => {
          const userinfo = credentials ? `${credentials[0]}:${credentials[1]}@` : '';
          const address = `${scheme}://${userinfo}${hostname}${port ? `:${port}` : ''}/${segments.join('/')}${query ? `?${query}` : ''}`;
          const expected = urlToHttpOptions(new URL(address));
          const { origin, path, host, basicAuthorization } = targetOf(address);
          const defaultPort = scheme === 'https' ? 443 : 80;
          const expectedPort =
            expected.port === undefined || expected.port === '' ? defaultPort : Number(expected.port);
          const bracketed = expected.hostname!.includes(':') ? `[${expected.hostname}]` : expected.hostname;
          expect(origin.https).toBe(scheme === 'https');
          expect({ hostname: origin.hostname, port: origin.port, path, host, basicAuthorization }).toEqual({
            hostname: expected.hostname,
            port: expectedPort,
            path: expected.path,
            // What Node's client puts in the Host header: the port only when it is not the scheme's.
            host: expectedPort === defaultPort ? bracketed : `${bracketed}:${expectedPort}`,
            basicAuthorization: expected.auth ? `Basic ${Buffer.from(expected.auth).toString('base64')}` : undefined,
          });
          expect(origin.key).toBe(`${scheme}://${host}`);
          // Asked again, the same options.
          expect(targetOf(address)).toBe(targetOf(address));
        },
      ),
      { numRuns: 200 },
    );
  });
});
