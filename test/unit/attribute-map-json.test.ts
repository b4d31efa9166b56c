import fc from 'fast-check';
import { attributeMapJson } from '../../functions/shared/store/attribute-map-json.js';
import { toAttributeMap } from '../../functions/shared/store/attribute-values.js';
import { storeJson } from '../../functions/shared/store/operations.js';

/** Both writers on one item: the same text, or both refusing it. */
const agree = (item: Record<string, unknown>) => {
  const outcome = (write: () => string) => {
    try {
      return { text: write() };
    } catch {
      return { refused: true };
    }
  };
  expect(outcome(() => attributeMapJson(item))).toEqual(outcome(() => storeJson(toAttributeMap(item))));
};

describe("an item's attribute map written as JSON", () => {
  it('is the text of its attribute map, for any nesting of plain values, numeric member names and specials included', () => {
    const value = fc.anything({
      withNullPrototype: true,
      withBoxedValues: false,
      withMap: false,
      withSet: false,
      withBigInt: false,
      withDate: false,
      withTypedArray: false,
      withSparseArray: false,
      maxDepth: 3,
    });
    const name = fc.oneof(fc.string(), fc.nat({ max: 20 }).map(String), fc.constantFrom('__proto__', 'B', 'N'));
    fc.assert(
      fc.property(fc.dictionary(name, value), (item) => agree(item)),
      { numRuns: 2000 },
    );
  });

  it('is the text of its attribute map for what the general path takes: sets, binary, instances, unsafe numbers', () => {
    agree({ tags: new Set(['a', 'b']), n: 1 });
    agree({ blob: new Uint8Array([1, 2, 3]), s: 'x' });
    agree({ nested: { list: [1, new Uint8Array([4])] } });
    agree({ when: new Date(0) });
    agree({ huge: Number.MAX_SAFE_INTEGER + 2 });
    agree({ special: Number.NaN });
    agree({ list: [1, undefined, 'two', () => 3, null, -0, 1e21, 1.5e-300] });
  });

  it('writes a usage record as its attribute map', () => {
    const record = {
      pk: 'acct_1#2026-11-27',
      sk: '2026-11-27T07:00:00.000Z#req_1',
      model: 'gpt-4o-mini',
      channelId: null,
      stream: false,
      promptTokens: 12,
      cost: 0.000123,
      note: 'quote " backslash \\ and 名',
    };
    expect(JSON.parse(attributeMapJson(record))).toEqual(toAttributeMap(record));
    expect(attributeMapJson(record)).toBe(storeJson(toAttributeMap(record)));
  });
});
