/**
 * What HTTP/1.1 lets a head carry (RFC 9110, 5.1 and 5.5): read by the request head the gateway
 * writes, the response heads it parses, and the admin API where it takes a value that will go in a
 * header, so that all three decide it the same way.
 */

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, spaces, tabs and obs-text: no CR, LF, NUL or other control character. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Whether `text` can be a header name (or a method): a token. */
export const isToken = (text: string): boolean => TOKEN.test(text);

/** Whether `text` can be a header's value as it is written: nothing that ends or breaks the line. */
export const isFieldValue = (text: string): boolean => FIELD_VALUE.test(text);
