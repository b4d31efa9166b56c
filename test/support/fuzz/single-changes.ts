/**
 * Every copy of a well-formed JSON value with exactly one value in it changed: each member, element
 * and nesting level, to each kind of JSON value or left out. The class a random mutation samples,
 * enumerated, so that no seed decides whether a case is seen.
 */

/** What a single value is changed to, one at a time: each JSON kind, or `undefined` (left out). */
const SINGLE_CHANGES: readonly unknown[] = [undefined, null, 'x', -1, 1.5, true, [], {}, [null], [{}], { '': null }];

/** Every place in a JSON value, as the keys that lead to it (the value itself is `[]`). */
const placesIn = (value: unknown, at: readonly string[] = []): string[][] =>
  value === null || typeof value !== 'object'
    ? [[...at]]
    : [[...at], ...Object.entries(value).flatMap(([name, inner]) => placesIn(inner, [...at, name]))];

/** `value` with the value at `place` replaced (an array keeps its length; `undefined` drops a member). */
const changedAt = (value: unknown, place: readonly string[], replacement: unknown): unknown => {
  if (place.length === 0) return replacement;
  const [name, ...rest] = place as [string, ...string[]];
  if (Array.isArray(value)) {
    const copy: unknown[] = [...value];
    copy[Number(name)] = changedAt(value[Number(name)], rest, replacement);
    return copy;
  }
  return { ...(value as object), [name]: changedAt((value as Record<string, unknown>)[name], rest, replacement) };
};

/** `value` with one of its values (itself included) changed to each of the single changes: every such copy, once. */
export const everyChangeOf = (value: unknown): unknown[] =>
  placesIn(value).flatMap((place) => SINGLE_CHANGES.map((replacement) => changedAt(value, place, replacement)));
