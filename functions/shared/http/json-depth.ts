import { exactNumbersIn } from './exact-numbers.js';
import { parseJson } from './parse-json.js';

/**
 * The deepest nesting of arrays and objects a JSON body may have. Real requests stay far below it
 * (a tool's JSON schema is a few dozen levels at most), and every recursive walk the gateway makes over
 * a body (validation, translation, serialisation) stays far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * An array or object as parsing makes them; not a number kept as its text (`exact-numbers.ts`), which
 * is an object too but no level of nesting.
 */
const isContainer = (value: unknown): value is object =>
  value !== null &&
  typeof value === 'object' &&
  (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype);

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `maxDepth`, checked before anything
 * recursive walks it. `JSON.parse` does not recurse, so the value is made whatever its depth; this
 * walks it with a list of its own, not the stack, and visits its arrays and objects rather than the
 * text's characters (a pass over the text of an 80 KB chat body cost twice its parse).
 */
export const exceedsJsonDepth = (value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean => {
  const pending: object[] = [];
  const depths: number[] = [];
  if (isContainer(value)) {
    pending.push(value);
    depths.push(1);
  }
  while (pending.length > 0) {
    const container = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(container) ? container : Object.values(container)) {
      if (isContainer(child)) {
        pending.push(child as object);
        depths.push(depth + 1);
      }
    }
  }
  return false;
};

/**
 * `JSON.parse` for JSON text carried inside a message (a tool call's arguments): text nested deeper
 * than the limit is refused with the same SyntaxError a malformed text gets, so callers that keep
 * unparseable text as it is treat both alike. A number a double would change is kept as its text
 * (`exact-numbers.ts`): as `JSON.rawJSON` by default, or as `exact` makes it for a serializer that
 * does not know raw JSON.
 */
export const parseNestedJson = (text: string, exact?: (source: string) => unknown): unknown => {
  const reviver = exactNumbersIn(text, exact);
  const value = reviver ? parseJson(text, reviver) : parseJson(text);
  if (exceedsJsonDepth(value)) throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
};
