import fc from 'fast-check';
import { parseFor } from '../../functions/shared/http/parse-json.js';

/**
 * The reader used where the runtime's JSON.parse misreads one-escape member names (the probe in
 * parse-json.ts decides): held to JSON.parse on everything else, whatever runtime runs the test.
 */
const parseJson = parseFor(true);

/** Member names the V8 bug misreads (one escape), and some it does not. */
const memberName = fc.oneof(
  fc.constantFrom('\t', '"', '\\', '\n', '\u0001', 'é', '名', '\ud800', '😀', 'a', '__proto__', 'constructor', '0'),
  fc.string({ maxLength: 6 }),
);

const { value: jsonValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(memberName, tie('value'), { maxKeys: 4 }),
  ),
}));

/** JSON as clients write it: compact, indented, or with every character past ASCII escaped (Python's default). */
const writtenAs = (value: unknown, form: 'compact' | 'indented' | 'ascii'): string => {
  if (form === 'indented') return JSON.stringify(value, null, 2);
  const text = JSON.stringify(value);
  if (form === 'compact') return text;
  return text.replace(/[^\t\n\r -~]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
};

/** A member named `\` after `a`: what makes V8 misread a later `"a"` then one-escape member on the Node 24 line. */
const poison = () => JSON.parse('{"a":1,"\\\\":2}') as unknown;

describe('parseJson', () => {
  test('reads every value as written, one-escape member names included, whatever was parsed before', () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom('compact', 'indented', 'ascii'), (value, form) => {
        poison();
        const text = writtenAs(value, form);
        // Text, not values: JSON.stringify is no parser, and reads -0 as 0 on both sides.
        expect(JSON.stringify(parseJson(text))).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  test('reads the name the V8 bug misreads', () => {
    poison();
    for (const name of ['\t', '"', '\\', 'é', '名']) {
      const text = writtenAs({ a: 1, [name]: 2 }, 'ascii');
      expect(Object.keys(parseJson(text) as object)).toEqual(['a', name]);
    }
  });

  test('refuses exactly the text JSON.parse refuses', () => {
    const refused = (parse: (text: string) => unknown, text: string) => {
      try {
        parse(text);
        return false;
      } catch (error) {
        expect(error).toBeInstanceOf(SyntaxError);
        return true;
      }
    };
    fc.assert(
      fc.property(
        jsonValue,
        fc.nat(),
        fc.constantFrom('delete', 'insert'),
        fc.constantFrom(...'{}[]":,\\ 0-e.tnu\u0001x'),
        (value, at, edit, character) => {
          const valid = writtenAs({ a: 1, '\t': value }, 'compact');
          const position = at % (valid.length + 1);
          const text =
            edit === 'delete'
              ? valid.slice(0, position) + valid.slice(position + 1)
              : valid.slice(0, position) + character + valid.slice(position);
          // Whether a text is JSON at all, the bug does not change.
          expect(refused(parseJson, text)).toBe(refused(JSON.parse, text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('makes __proto__ an own member, as JSON.parse does, and never a prototype', () => {
    const parsed = parseJson('{"\\t":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['\t', '__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('applies a reviver as JSON.parse does: members first, undefined deletes', () => {
    const seen: string[] = [];
    const reviver = function (this: unknown, key: string, value: unknown) {
      seen.push(key);
      if (key === 'drop') return undefined;
      return typeof value === 'number' ? value * 2 : value;
    };
    const text = '{"\\t":{"n":1,"drop":2},"list":[3,{"drop":4}]}';
    expect(parseJson(text, reviver)).toEqual({ '\t': { n: 2 }, list: [6, {}] });
    expect(seen).toEqual(['n', 'drop', '\t', '0', 'drop', '1', 'list', '']);
  });

  test("gives a reviver each primitive's source text as JSON.parse does, digits a double cannot hold included", () => {
    // Names that are no single escape: JSON.parse reads them right whatever was parsed before, so it
    // is the reference; the text's first member, a one-escape name with nothing before it, sends the
    // whole text down the guarded reader's path.
    const name = fc
      .string({ maxLength: 6 })
      .filter((candidate) => !/^"\\(?:u[0-9A-Fa-f]{4}|[^u])"$/.test(JSON.stringify(candidate)));
    const numberText = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.tuple(fc.nat(), fc.stringMatching(/^[0-9]{1,25}$/)).map(([whole, fraction]) => `${whole}.${fraction}`),
      fc.constantFrom('1e400', '-0', '1E-7', '0.1e+2', '-12345678901234567890.5'),
    );
    const { text: valueText } = fc.letrec((tie) => ({
      text: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('null', 'true', 'false'),
        numberText,
        fc.string({ maxLength: 6 }).map((value) => JSON.stringify(value)),
        fc.array(tie('text'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(name, tie('text')), { maxLength: 4 })
          .map((members) => `{ ${members.map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(' , ')} }`),
      ),
    }));
    const callsOf = (parse: (text: string, reviver: never) => unknown, text: string) => {
      const calls: unknown[] = [];
      parse(text, ((key: string, value: unknown, context: unknown) => {
        calls.push([key, value !== null && typeof value === 'object' ? 'object' : value, context]);
        return value;
      }) as never);
      return calls;
    };
    fc.assert(
      fc.property(valueText, (value) => {
        const text = `{"\\t": ${value}}`;
        expect(callsOf(parseJson, text)).toEqual(callsOf(JSON.parse, text));
      }),
      { numRuns: 1000 },
    );
  });

  test('withholds the source text of a member the reviver changed before reaching it, as JSON.parse does', () => {
    const text = '{"\\t":[1,2,3]}';
    const sources = (parse: (text: string, reviver: never) => unknown) => {
      const seen: unknown[] = [];
      parse(text, function (this: unknown[], key: string, value: unknown, context: { source?: string }) {
        if (key === '0') this[1] = 20;
        seen.push([key, context.source]);
        return value;
      } as never);
      return seen;
    };
    expect(sources(parseJson)).toEqual(sources(JSON.parse));
    expect(sources(parseJson)).toContainEqual(['1', undefined]);
  });

  test('refuses text nested past the stack with a SyntaxError, not a RangeError', () => {
    const text = `{"\\t":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(() => parseJson(text)).toThrow(SyntaxError);
  });
});
