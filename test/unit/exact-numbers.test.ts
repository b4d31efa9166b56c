import fc from 'fast-check';
import { exceedsJsonDepth, MAX_JSON_DEPTH, parseNestedJson } from '../../functions/shared/http/json-depth.js';

/**
 * The exact value a JSON number's text stands for, as a reduced fraction-free pair: the digits without
 * leading or trailing zeros, and the power of ten of the last one. Worked out with strings and BigInt,
 * apart from the code under test.
 */
const exactValue = (text: string): string => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = BigInt(`${whole}${fraction}`).toString();
  let power = BigInt(exponent) - BigInt(fraction.length);
  if (digits === '0') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    power += 1n;
  }
  return `${sign}${digits}*10^${power}`;
};

/** Every number token of a JSON text (there are no strings in the texts these tests build). */
const numbersIn = (text: string): string[] => text.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? [];

/** A JSON number's text: any digits, a fraction and an exponent sometimes, up to thirty digits long. */
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.stringMatching(/^(0|[1-9]\d{0,29})$/),
    fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }),
    fc.option(fc.integer({ min: -400, max: 400 }), { nil: undefined }),
  )
  .map(
    ([negative, whole, fraction, exponent]) =>
      `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`,
  );

describe('numbers of nested JSON text', () => {
  it('write back with the value their text stands for, however many digits it has', () => {
    fc.assert(
      fc.property(fc.array(numberText, { minLength: 1, maxLength: 6 }), (numbers) => {
        const text = `{"a":[${numbers.join(',')}],"b":{"c":${numbers[0]}}}`;
        const written = JSON.stringify(parseNestedJson(text));
        expect(numbersIn(written).map(exactValue)).toEqual([...numbers, numbers[0]!].map(exactValue));
      }),
      { numRuns: 2000 },
    );
  });

  it('stay numbers where a double holds them, and are kept as text only where it would not', () => {
    const value = parseNestedJson('{"one":1.0,"hundred":1e2,"zero":-0,"tenth":0.1,"max":9007199254740992}') as Record<
      string,
      unknown
    >;
    for (const member of Object.values(value)) expect(typeof member).toBe('number');
    const big = parseNestedJson('{"id":12345678901234567890}') as { id: unknown };
    expect(typeof big.id).toBe('object');
    expect(JSON.stringify(big)).toBe('{"id":12345678901234567890}');
  });

  it('keep their text in the form a serializer asks for', () => {
    const kept: string[] = [];
    const value = parseNestedJson('[1,0.10000000000000000001,1e400]', (source) => {
      kept.push(source);
      return { exact: source };
    });
    expect(value).toEqual([1, { exact: '0.10000000000000000001' }, { exact: '1e400' }]);
    expect(kept).toEqual(['0.10000000000000000001', '1e400']);
  });

  it('do not count as a level of nesting when kept as text', () => {
    const deepest = `${'['.repeat(MAX_JSON_DEPTH)}12345678901234567890${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(exceedsJsonDepth(parseNestedJson(deepest))).toBe(false);
    expect(() => parseNestedJson(`[${deepest}]`)).toThrow(SyntaxError);
  });
});
