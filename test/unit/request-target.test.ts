import fc from 'fast-check';
import { parseRequestTarget } from '../../infra/local/request-target.js';

/** The local runtime reads most targets without a URL parse: it must route them as the parse would. */
describe('a request target, as the local runtime routes it', () => {
  /** What a target reads as, or that it is refused (the runtime answers 400 then). */
  const outcome = (read: () => { path: string; query: Iterable<[string, string]> | undefined }) => {
    try {
      const { path, query } = read();
      return { path, query: [...(query ?? [])] };
    } catch {
      return 'refused';
    }
  };
  const asUrlParses = (target: string) =>
    outcome(() => {
      const url = new URL(target, 'http://localhost');
      return { path: url.pathname, query: url.search === '' ? undefined : url.searchParams };
    });
  const parsed = (target: string) => outcome(() => parseRequestTarget(target));

  it('has the path and query a URL parse gives, whatever characters the path holds', () => {
    // Weighted towards the characters that decide: dots, slashes, escapes, a query or fragment.
    const character = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('.', '/', '%', '2', 'e', 'E', '?', '#', '\\', '@', ':', '=', '&') },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 24 }), (characters) => {
        const target = `/${characters.join('')}`;
        expect(parsed(target)).toEqual(asUrlParses(target));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['/v1/chat/completions', '/v1/chat/completions'],
    ['/v1/models/gpt-4.1', '/v1/models/gpt-4.1'],
    ['/v1/../admin/v1/keys', '/admin/v1/keys'],
    ['/v1/%2e%2e/admin/v1/keys', '/admin/v1/keys'],
    ['/v1/models/.', '/v1/models/'],
    ['//host.example/v1/models', '/v1/models'],
    ['/v1beta/models/gemini-2.5-pro:generateContent?key=abc', '/v1beta/models/gemini-2.5-pro:generateContent'],
  ])('%s routes as %s', (target, path) => {
    expect(parseRequestTarget(target).path).toBe(path);
    expect(parsed(target)).toEqual(asUrlParses(target));
  });

  it('refuses what a URL parse refuses', () => {
    expect(() => parseRequestTarget('/\\')).toThrow('The request target is not a valid URL path.');
  });

  it('keeps every query parameter, repeated ones in order', () => {
    expect(parsed('/v1/models?key=a&b=1&key=c')).toHaveProperty('query', [
      ['key', 'a'],
      ['b', '1'],
      ['key', 'c'],
    ]);
  });
});
