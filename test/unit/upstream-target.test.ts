import fc from 'fast-check';
import { urlToHttpOptions } from 'node:url';
import { targetOf } from '../../functions/shared/upstream/upstream-http.js';

/** Parsed once and kept, an upstream URL must still give the request options Node itself derives. */
describe('the request options of an upstream URL', () => {
  it('are what Node derives from the URL: protocol, host, port, path with query, credentials', () => {
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
          const { options, https } = targetOf(address);
          expect(https).toBe(scheme === 'https');
          expect({
            protocol: options.protocol,
            hostname: options.hostname,
            port: options.port,
            path: options.path,
            auth: options.auth,
          }).toEqual({
            protocol: expected.protocol,
            hostname: expected.hostname,
            port: expected.port,
            path: expected.path,
            auth: expected.auth,
          });
          // Asked again, the same options.
          expect(targetOf(address)).toBe(targetOf(address));
        },
      ),
      { numRuns: 200 },
    );
  });
});
