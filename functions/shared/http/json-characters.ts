/** The character codes of JSON's structure, and a number's text, for the code that reads JSON text itself. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** A JSON number's text, unanchored (RFC 8259 §6). */
export const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;
