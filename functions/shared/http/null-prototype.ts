/**
 * A map for request-derived names (headers, query parameters, path parameters): without a prototype,
 * a name such as `__proto__`, `constructor` or `toString` is an ordinary entry, never an inherited
 * function or a prototype swap.
 */
export const nullPrototypeRecord = <Value>(): Record<string, Value> => Object.create(null) as Record<string, Value>;
