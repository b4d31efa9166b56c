import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-characters.js';
import { parseJson } from './parse-json.js';

/**
 * The deepest nesting of arrays and objects a JSON body may have. Real requests stay far below it
 * (a tool's JSON schema is a few dozen levels at most), and every recursive walk the gateway makes over
 * a body (validation, translation, serialisation) stays far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`. One pass over the characters,
 * before anything recursive touches the text; brackets inside strings do not count.
 */
export const exceedsJsonDepth = (text: string, maxDepth: number = MAX_JSON_DEPTH): boolean => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
};

/**
 * `JSON.parse` for text a client sent inside a request (a tool call's arguments): text nested deeper
 * than the limit is refused with the same SyntaxError a malformed text gets, so callers that keep
 * unparseable text as it is treat both alike.
 */
export const parseNestedJson = (text: string): unknown => {
  if (exceedsJsonDepth(text)) throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return parseJson(text);
};
