import { exceedsJsonDepth, MAX_JSON_DEPTH, parseNestedJson } from '../../functions/shared/http/json-depth.js';

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** The value JSON.parse makes of `text`, as the checks get it. */
const parsed = (text: string): unknown => JSON.parse(text);

describe('JSON nesting depth', () => {
  it('counts a document of scalars as no nesting, and a flat one as one level', () => {
    for (const scalar of [1, 'x', null, true]) expect(exceedsJsonDepth(scalar, 0)).toBe(false);
    expect(exceedsJsonDepth({ a: 1, b: 'two' }, 1)).toBe(false);
    expect(exceedsJsonDepth({ a: [] }, 1)).toBe(true);
  });

  it('accepts text nested exactly to the limit', () => {
    expect(exceedsJsonDepth(parsed(nestedArrays(MAX_JSON_DEPTH)))).toBe(false);
    expect(exceedsJsonDepth(parsed(nestedObjects(MAX_JSON_DEPTH)))).toBe(false);
  });

  it('refuses text nested one level past the limit, arrays and objects mixed', () => {
    expect(exceedsJsonDepth(parsed(nestedArrays(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(exceedsJsonDepth(parsed(`{"a":${nestedArrays(MAX_JSON_DEPTH)}}`))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ text: '['.repeat(10_000), quoted: '\\"{{{{' + '{'.repeat(10_000) });
    expect(exceedsJsonDepth(parsed(text))).toBe(false);
  });

  it('walks a hundred thousand levels without recursion', () => {
    expect(exceedsJsonDepth(parsed(nestedArrays(100_000)))).toBe(true);
  });

  it('parses nested tool arguments within the limit and refuses deeper ones as a SyntaxError', () => {
    expect(parseNestedJson('{"a":[1,{"b":2}]}')).toEqual({ a: [1, { b: 2 }] });
    expect(() => parseNestedJson(nestedObjects(50_000))).toThrow(SyntaxError);
  });
});
