import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { toAttributeMap } from '../../functions/shared/store/attribute-values.js';
import { MARSHALL_OPTIONS } from '../../functions/shared/store/marshall-options.js';

/**
 * The hot writes' marshaller must give exactly what util-dynamodb's `marshall` gives with the store's
 * options, for every item: the same attribute values, or an error where it refuses one.
 */

const outcome = (marshal: () => unknown) => {
  try {
    return { value: marshal() };
  } catch {
    return { refused: true };
  }
};

const agree = (item: Record<string, unknown>) => {
  expect(outcome(() => toAttributeMap(item))).toEqual(outcome(() => marshall(item, MARSHALL_OPTIONS)));
};

class Instance {
  constructor(
    readonly name: string,
    readonly size: number,
  ) {}
}

describe('attribute values of an item', () => {
  it('are what marshall gives, for any nesting of plain values (special numbers, undefined, numeric and __proto__ names included)', () => {
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

  it('are what marshall gives for the values it handles itself: sets, binary, class instances, huge numbers', () => {
    agree({ tags: new Set(['a', 'b']), sizes: new Set([1, 2]) });
    agree({ blob: new Uint8Array([1, 2, 3]) });
    agree({ nested: new Instance('x', 3) });
    agree({ map: { constructor: 'a model id', other: 1 } });
    agree({ huge: Number.MAX_SAFE_INTEGER + 2 });
    agree({ tiny: -Number.MAX_SAFE_INTEGER - 2 });
    agree({ list: [1, undefined, 'two', () => 3, null] });
    agree({ nested: { list: [1, new Uint8Array([4])] }, when: new Date(0) });
    agree({ list: [-0, 1e21, 1.5e-300] });
    agree({ fraction: 0.1 + 0.2, negativeZero: -0, exponent: 1.5e-300 });
    agree({ special: Number.NaN });
    agree({ special: Number.POSITIVE_INFINITY });
  });

  it('keep a usage record as marshall would', () => {
    const record = {
      requestId: 'req_1',
      accountId: 'acct_1',
      channelId: null,
      stream: false,
      promptTokens: 12,
      cost: 0.000123,
      cacheWriteTokens: undefined,
      partition: 'acct_1#3',
      expiresAt: 1_900_000_000,
      note: 'quote " backslash \\ and 名',
    };
    agree(record);
    expect(toAttributeMap(record)).toEqual(marshall(record, MARSHALL_OPTIONS));
  });
});
