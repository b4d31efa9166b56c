import fc from 'fast-check';
import { guardGlobalJsonParse } from '../../functions/shared/http/parse-json.js';

/** What the SDK's code sees: the global, guarded once the first SDK client loads. */
const nativeParse = JSON.parse;
guardGlobalJsonParse();

describe('the guarded global JSON.parse', () => {
  test('replaces the global once, however often it is asked to', () => {
    const guarded = JSON.parse;
    expect(guarded).not.toBe(nativeParse);
    guardGlobalJsonParse();
    expect(JSON.parse).toBe(guarded);
  });

  test('reads one-escape member names as written after a member named \\', () => {
    JSON.parse('{"a":1,"\\\\":2}');
    for (const [escaped, name] of [
      ['\\t', '\t'],
      ['\\u540d', '名'],
      ['\\"', '"'],
    ])
      expect(Object.keys(JSON.parse(`{"a":1,"${escaped}":2}`) as object)).toEqual(['a', name]);
  });

  test('reads a Buffer as its UTF-8 text, as JSON.parse does (the SDK hands it Buffers)', () => {
    expect(JSON.parse(Buffer.from('{"\\t":"名"}') as unknown as string)).toEqual({ '\t': '名' });
    expect(JSON.parse(Buffer.from('[1,2]') as unknown as string)).toEqual([1, 2]);
  });

  test('applies a reviver as JSON.parse does, on either path', () => {
    const reviver = (key: string, value: unknown) => (typeof value === 'number' ? value * 10 : value);
    for (const text of ['{"a":{"b":[1,2]},"c":3}', '{"a":{"\\t":[1,2]},"c":3}'])
      expect(JSON.stringify(JSON.parse(text, reviver))).toBe(JSON.stringify(nativeParse(text, reviver)));
  });

  test('accepts and refuses what JSON.parse accepts and refuses', () => {
    // Whether it throws, not the value: the native parse may be the poisoned one by now.
    const outcome = (parse: (text: string) => unknown, text: string) => {
      try {
        parse(text);
        return 'read';
      } catch (error) {
        return (error as Error).name;
      }
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((text) => text.replace(/"[^"]*":/, '"\\n":')),
        ),
        (text) => {
          expect(outcome(JSON.parse, text)).toBe(outcome(nativeParse, text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
