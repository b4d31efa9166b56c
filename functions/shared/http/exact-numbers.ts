/**
 * Numbers kept with the digits their JSON text had, where a double would change them. A tool call's
 * arguments are text a model wrote (`{"id":12345678901234567890}`); when the gateway translates them
 * into another protocol's object (Anthropic's `input`, Gemini's `args`, Converse's `input`) a plain
 * parse would hand the tool 12345678901234567000 instead. Numbers a double holds exactly stay numbers.
 */

/** `JSON.rawJSON` (V8 since Node 21): a value that `JSON.stringify` writes as the given text. */
export const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * Whether a text may hold a number a double rounds: sixteen or more digits in a row (a decimal point
 * among them counts), or an exponent (which can overflow or underflow). Text without either parses
 * as it always did, without a reviver's cost; text with them only in strings merely takes the reviver.
 */
const MAY_ROUND = /\d[\d.]{15}|\d[eE]/;

/** A number's text as sign, significant digits and exponent, so that `1.50` and `15e-1` read alike. */
const canonical = (text: string): string => {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const leading = /^0*/.exec(digits)![0].length;
  const significant = digits.slice(leading).replace(/0+$/, '');
  if (significant === '') return '0';
  // The exponent of the first significant digit, as in d.ddd × 10^e.
  const magnitude = Number(exponent) + whole.length - leading - 1;
  return `${sign}${significant}e${magnitude}`;
};

/** What a double made of a number's text, as text: `String` writes the shortest that reads back alike. */
const keptExactly = (value: number, source: string): boolean =>
  Number.isFinite(value) && canonical(String(value)) === canonical(source);

/**
 * A reviver for `parseJson` that replaces each number a double would change with `exact(source)`;
 * by default `JSON.rawJSON`, which `JSON.stringify` writes as the source text.
 */
const exactNumbersReviver =
  (exact: (source: string) => unknown) =>
  (_name: string, value: unknown, context?: { source?: string }): unknown =>
    typeof value === 'number' && context?.source !== undefined && !keptExactly(value, context.source)
      ? exact(context.source)
      : value;

/** The reviver to parse `text` with, or none where no number in it can round. */
export const exactNumbersIn = (
  text: string,
  exact: (source: string) => unknown = rawJson,
): ((name: string, value: unknown, context?: { source?: string }) => unknown) | undefined =>
  MAY_ROUND.test(text) ? exactNumbersReviver(exact) : undefined;
