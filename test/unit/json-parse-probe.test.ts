import fc from 'fast-check';
import {
  JSON_PARSE_MISREADS_NAMES,
  misreadsOneEscapeNames,
  parseFor,
  parseJson,
} from '../../functions/shared/http/parse-json.js';

/**
 * The V8 bug that reads a one-escape member name as `\` (nodejs/node#63785) is probed for once, and
 * the slow reader is used only where the probe finds it; the global `JSON.parse` is never replaced.
 */

const nativeParse = JSON.parse;

/** A parse with the bug, as V8 had it: after a `\` member, a one-escape name at the same place reads as `\`. */
const buggyParse = () => {
  const poisoned = new Set<string>();
  return (text: string): unknown => {
    const value = nativeParse(text) as Record<string, unknown>;
    const keys = Object.keys(value);
    if (keys[1] === '\\') poisoned.add(keys[0]!);
    if (keys.length === 2 && poisoned.has(keys[0]!) && /^"\\/.test(JSON.stringify(keys[1]))) {
      return { [keys[0]!]: value[keys[0]!], '\\': value[keys[1]!] };
    }
    return value;
  };
};

describe('the JSON.parse probe', () => {
  test('finds the bug in a parse that has it, and none in one that does not', () => {
    expect(misreadsOneEscapeNames(buggyParse())).toBe(true);
    expect(misreadsOneEscapeNames((text) => parseFor(true)(text))).toBe(false);
  });

  test('finds none on the pinned runtime (Node 24.22.3), where JSON.parse itself reads every name', () => {
    if (process.version !== 'v24.22.3') return;
    expect(JSON_PARSE_MISREADS_NAMES).toBe(false);
    expect(parseJson).toBe(parseFor(false));
    nativeParse('{"a":1,"\\\\":2}');
    expect(Object.keys(nativeParse('{"a":1,"\\t":2}') as object)).toEqual(['a', '\t']);
  });

  test('leaves the global JSON.parse as the runtime made it, with every SDK client loaded', async () => {
    await import('../../functions/shared/providers/bedrock/bedrock-runtime-sdk.js');
    await import('../../functions/shared/secrets/secrets-manager-sdk.js');
    expect(JSON.parse).toBe(nativeParse);
  });
});

describe('the reader used where the probe finds the bug', () => {
  const guarded = parseFor(true);

  test('reads one-escape member names as written after a member named \\', () => {
    guarded('{"a":1,"\\\\":2}');
    for (const [escaped, name] of [
      ['\\t', '\t'],
      ['\\u540d', '名'],
      ['\\"', '"'],
    ])
      expect(Object.keys(guarded(`{"a":1,"${escaped}":2}`) as object)).toEqual(['a', name]);
  });

  test('accepts and refuses what JSON.parse accepts and refuses', () => {
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
          expect(outcome(guarded, text)).toBe(outcome(nativeParse, text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
