/**
 * Records made by `new` from a prototype that is itself without one: as safe as
 * `Object.create(null)` and twice as fast to fill, since V8 keeps them in its fast object mode where
 * an `Object.create(null)` object starts as a dictionary (a request's headers fill four of them).
 */
function NullPrototypeRecord(): void {}
NullPrototypeRecord.prototype = Object.create(null) as object;

/**
 * A map for request-derived names (headers, query parameters, path parameters): with no
 * `Object.prototype` on its chain, a name such as `__proto__`, `constructor` or `toString` is an
 * ordinary entry, never an inherited function or a prototype swap.
 */
export const nullPrototypeRecord = <Value>(): Record<string, Value> =>
  new (NullPrototypeRecord as unknown as new () => Record<string, Value>)();
