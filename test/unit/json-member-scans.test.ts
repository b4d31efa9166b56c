import fc from 'fast-check';
import {
  AnswerText,
  frameEvent,
  frameRenamed,
  joinedStringMembers,
  memberTest,
  nullMember,
  stringMember,
  stringMembers,
  withoutMember,
} from '../../functions/shared/streaming/pass-through-events.js';
import { misreadByJsonParse } from '../support/json-parse-hazard.js';

/**
 * The member scans a relayed stream runs on each event's JSON text, held to what parsing that text
 * says, over generated objects: keys and strings with quotes, backslashes, braces, commas and any
 * character, at any depth, serialised compactly or with the spacing other servers use.
 */

const SCANNED = ['model', 'usage', 'error', 'content', 'arguments'];
/** Any character, the ones JSON escapes or uses as syntax often. */
const character = fc.oneof(
  fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', '\t', 'u', 'a'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: character, maxLength: 12 });
/** Any key but the scanned names, which each property places itself, and those V8 may parse back wrong. */
const otherKey = fc
  .string({ unit: character, maxLength: 8 })
  .filter((key) => !SCANNED.includes(key) && key !== '__proto__' && !misreadByJsonParse(key));

/** JSON values without scanned member names, down to a few levels. */
const plainValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1.5),
    text,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(otherKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const plainObject = fc.dictionary(otherKey, plainValue, { maxKeys: 5 });
/** How servers space their JSON: compact, or indented by spaces or a tab. */
const spacing = fc.constantFrom(undefined, 1, 2, '\t');
const serialised = (value: unknown, space: string | number | undefined) => JSON.stringify(value, null, space);

/** The object with `member` inserted at `position` among its keys. */
const withMemberAt = (object: Record<string, unknown>, position: number, name: string, value: unknown) => {
  const entries = Object.entries(object);
  entries.splice(position % (entries.length + 1), 0, [name, value]);
  return Object.fromEntries(entries);
};

describe('JSON member scans of relayed events', () => {
  test('a string member is replaced, and nothing else changes', () => {
    const model = stringMember('model');
    fc.assert(
      fc.property(plainObject, fc.nat(), text, text, spacing, (object, position, before, after, space) => {
        const event = withMemberAt(object, position, 'model', before);
        const framed = frameRenamed(serialised(event, space), model, JSON.stringify(after));
        expect(framed).toBe(frameEvent(serialised({ ...event, model: after }, space)));
      }),
    );
  });

  test('a string member is replaced and a null member cut, wherever each stands, in one framed event', () => {
    const model = stringMember('model');
    const usageNull = nullMember('usage');
    fc.assert(
      fc.property(
        plainObject,
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        text,
        text,
        spacing,
        (object, modelAt, usageAt, usageLast, before, after, space) => {
          const named = withMemberAt(object, modelAt, 'model', before);
          const event = usageLast ? { ...named, usage: null } : withMemberAt(named, usageAt, 'usage', null);
          const framed = frameRenamed(serialised(event, space), model, JSON.stringify(after), usageNull)!;
          // Framed as SSE: each line of the data on a `data:` line of its own.
          expect(framed.endsWith('\n\n')).toBe(true);
          const data = framed
            .slice(0, -2)
            .split('\n')
            .map((line) => line.slice('data: '.length))
            .join('\n');
          expect(framed).toBe(frameEvent(data));
          expect(JSON.parse(data)).toEqual({ ...named, model: after });
        },
      ),
    );
  });

  test('an object without the member is left to the caller', () => {
    fc.assert(
      fc.property(plainObject, spacing, fc.boolean(), (object, space, cut) => {
        const json = serialised(object, space);
        expect(frameRenamed(json, stringMember('model'), '"x"', cut ? nullMember('usage') : undefined)).toBeUndefined();
      }),
    );
  });

  test('the values of the answer members are joined in the order they appear, escapes kept', () => {
    const answer = stringMembers(['content', 'arguments']);
    const nested = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        plainValue,
        fc.array(tie('node'), { maxLength: 3 }),
        fc
          .tuple(plainObject, fc.nat(), fc.constantFrom('content', 'arguments'), fc.oneof(text, tie('node')))
          .map(([object, position, name, value]) => withMemberAt(object, position, name, value)),
      ),
    })).node;
    const expected = (value: unknown): string => {
      if (Array.isArray(value)) return value.map(expected).join('');
      if (value === null || typeof value !== 'object') return '';
      return Object.entries(value)
        .map(([key, item]) =>
          (key === 'content' || key === 'arguments') && typeof item === 'string'
            ? JSON.stringify(item).slice(1, -1)
            : expected(item),
        )
        .join('');
    };
    fc.assert(
      fc.property(nested, spacing, (value, space) => {
        const json = serialised(value, space);
        expect(joinedStringMembers(json, answer)).toBe(expected(value));
      }),
    );
  });

  test('a null member is removed with its comma, wherever it stands, the last one of a compact object included', () => {
    const usageNull = nullMember('usage');
    fc.assert(
      fc.property(plainObject, fc.nat(), spacing, fc.boolean(), (object, position, space, last) => {
        const event = last ? { ...object, usage: null } : withMemberAt(object, position, 'usage', null);
        expect(JSON.parse(withoutMember(serialised(event, space), usageNull))).toEqual(object);
      }),
    );
  });

  test('a last member that only looks like the null one is not cut off', () => {
    // Inside a nested object, or a string's end: the outermost object keeps what it had.
    for (const json of ['{"a":{"b":1,"usage":null}}', '{"a":"x,\\"usage\\":null}"}', '{"usage":null}']) {
      const cut = withoutMember(json, nullMember('usage'));
      const expected = JSON.parse(json) as Record<string, unknown>;
      if ('usage' in expected) delete expected.usage;
      else if (typeof expected.a === 'object') delete (expected.a as Record<string, unknown>).usage;
      expect(JSON.parse(cut)).toEqual(expected);
    }
  });

  test('the answer text kept for later reads as the events scanned one by one, past its bound too', () => {
    const answer = stringMembers(['content', 'arguments']);
    const event = fc
      .tuple(plainObject, fc.nat(), fc.constantFrom('content', 'arguments'), text, fc.nat({ max: 40_000 }))
      .map(([object, position, name, value, padding]) =>
        JSON.stringify(withMemberAt({ ...object, pad: 'p'.repeat(padding) }, position, name, value)),
      );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), fc.nat({ max: 8 }), (events, askedAfter) => {
        const kept = new AnswerText(answer);
        let expected = '';
        events.forEach((data, index) => {
          kept.add(data);
          expected += joinedStringMembers(data, answer);
          if (index === askedAfter) expect(kept.text()).toBe(expected);
        });
        expect(kept.text()).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  test('a member with a value of another kind is not taken for a null one', () => {
    fc.assert(
      fc.property(
        plainObject,
        fc.nat(),
        plainValue.filter((value) => value !== null),
        spacing,
        (object, position, usage, space) => {
          const json = serialised(withMemberAt(object, position, 'usage', usage), space);
          expect(withoutMember(json, nullMember('usage'))).toBe(json);
        },
      ),
    );
  });

  test('a member test without a value kind finds the member wherever it is a key, whatever its value', () => {
    const error = memberTest('error');
    fc.assert(
      fc.property(plainObject, fc.nat(), plainValue, fc.boolean(), spacing, (object, position, value, added, space) => {
        const event = added ? withMemberAt(object, position, 'error', value) : object;
        expect(error.test(serialised(event, space))).toBe(added);
      }),
    );
  });

  test('a member test finds the member only where it is a key with that kind of value', () => {
    const usageObject = memberTest('usage', '\\{');
    const hasObjectUsage = (value: unknown): boolean =>
      Array.isArray(value)
        ? value.some(hasObjectUsage)
        : value !== null &&
          typeof value === 'object' &&
          Object.entries(value).some(
            ([key, item]) =>
              (key === 'usage' && item !== null && typeof item === 'object' && !Array.isArray(item)) ||
              hasObjectUsage(item),
          );
    fc.assert(
      fc.property(
        plainObject,
        fc.nat(),
        fc.oneof(
          plainValue,
          plainObject,
          text.map((words) => `"usage":{${words}`),
        ),
        spacing,
        (object, position, usage, space) => {
          const value = withMemberAt(object, position, 'usage', usage);
          expect(usageObject.test(serialised(value, space))).toBe(hasObjectUsage(value));
        },
      ),
    );
  });

  test('renaming and cutting in one text is renaming, cutting and framing in turn, for any text', () => {
    // Malformed text included: a relayed event is not parsed, so its text can be anything, down to a
    // model value that runs into the null member's own text.
    const model = stringMember('model');
    const usageNull = nullMember('usage');
    const piece = fc.constantFrom('{', '}', '"model"', '"usage"', ':', 'null', ',', '"x"', '"', '\\', ' ', '\n', 'a');
    const jsonish = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));
    const inTurn = (data: string, json: string, cut: boolean) => {
      const match = model.exec(data);
      if (!match) return undefined;
      const end = match.index + match[0].length;
      const renamed = data.slice(0, end - match[1]!.length) + json + data.slice(end);
      return frameEvent(cut ? withoutMember(renamed, usageNull) : renamed);
    };
    fc.assert(
      fc.property(jsonish, text, fc.boolean(), (data, name, cut) => {
        const json = JSON.stringify(name);
        expect(frameRenamed(data, model, json, cut ? usageNull : undefined)).toBe(inTurn(data, json, cut));
      }),
      { numRuns: 2000 },
    );
    expect(frameRenamed('{"model":"x,"usage":null}', model, '"new"', usageNull)).toBe(
      inTurn('{"model":"x,"usage":null}', '"new"', true),
    );
  });

  test('a quoted name that is not a key is passed over for a later one that is', () => {
    // Relayed text is scanned unparsed: a name after `[` (or any other character) is not a member's key.
    const text = '{"list":["model":"no"],"model":"yes"}';
    expect(frameRenamed(text, stringMember('model'), '"new"')).toBe('data: {"list":["model":"no"],"model":"new"}\n\n');
    expect(memberTest('list').test('["list":1]')).toBe(false);
    expect(memberTest('list').test('[1, "list":1]')).toBe(true);
  });
});
