import { ResponseFramingError } from './response-framing-error.js';

/**
 * How a response head frames its body (RFC 9112, section 6.3), and the header fields as the parser
 * (`response-parser.ts`) collects them: repeats joined or dropped as Node's client does, optional
 * whitespace trimmed, and list values read token by token.
 */

const DIGITS = /^\d{1,15}$/;

/** Headers kept once, as Node keeps them: a repeat is dropped, not joined. */
const SINGLE_VALUED = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

export interface BodyFraming {
  /** What follows the head: nothing, a body of `length` bytes, chunks, or bytes until the close. */
  readonly body: 'none' | 'length' | 'chunked' | 'until-close';
  readonly length: number;
  /** Whether the framing lets the connection carry another request (the head may still say no). */
  readonly reusable: boolean;
}

export const NO_BODY: BodyFraming = { body: 'none', length: 0, reusable: true };
const UNTIL_CLOSE: BodyFraming = { body: 'until-close', length: 0, reusable: false };

/** How a response's body is framed (RFC 9112, 6.3). Throws `ResponseFramingError`. */
export const framingOf = (status: number, headers: Record<string, string | string[]>): BodyFraming => {
  if (status === 204 || status === 304) return NO_BODY;
  const transferEncoding = headers['transfer-encoding'];
  if (transferEncoding !== undefined) {
    const value = String(transferEncoding).toLowerCase();
    // The usual value is `chunked` alone; a list is read coding by coding.
    if (value !== 'chunked') {
      const codings = value.split(',').map(trimWhitespace);
      // Chunked must be the last coding; a body with another last coding runs until the close.
      if (codings.at(-1) !== 'chunked') return UNTIL_CLOSE;
      if (codings.indexOf('chunked') !== codings.length - 1) throw new ResponseFramingError('chunked applied twice');
    }
    // With a Content-Length too, Transfer-Encoding frames the body and the connection is closed after.
    return { body: 'chunked', length: 0, reusable: headers['content-length'] === undefined };
  }
  const length = headers['content-length'];
  if (length === undefined) return UNTIL_CLOSE;
  if (typeof length !== 'string' || !DIGITS.test(length)) throw new ResponseFramingError('malformed content-length');
  const bytes = Number(length);
  return bytes === 0 ? NO_BODY : { body: 'length', length: bytes, reusable: true };
};

const isWhitespace = (code: number): boolean => code === 0x20 || code === 0x09;

/** Optional whitespace around a field value is spaces and tabs only (RFC 9110, 5.6.3). */
export const trimWhitespace = (value: string): string => {
  let start = 0;
  let end = value.length;
  while (start < end && isWhitespace(value.charCodeAt(start))) start += 1;
  while (end > start && isWhitespace(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
};

export const addHeader = (headers: Record<string, string | string[]>, name: string, value: string): void => {
  const known = headers[name];
  if (known === undefined) {
    headers[name] = name === 'set-cookie' ? [value] : value;
    return;
  }
  if (name === 'content-length') {
    // Repeats must agree: two lengths would frame the body two ways.
    if (known !== value) throw new ResponseFramingError('conflicting content-length');
    return;
  }
  if (Array.isArray(known)) known.push(value);
  else if (name === 'cookie') headers[name] = `${known}; ${value}`;
  else if (!SINGLE_VALUED.has(name)) headers[name] = `${known}, ${value}`;
};

export const hasToken = (value: string | string[] | undefined, token: string): boolean => {
  if (value === undefined) return false;
  const lower = String(value).toLowerCase();
  // The usual value is the token alone, or has no trace of it.
  if (lower === token) return true;
  if (!lower.includes(token)) return false;
  return lower.split(',').some((part) => trimWhitespace(part) === token);
};

/** Node's client gives up a kept-alive connection this long before the server's `Keep-Alive: timeout` says it would. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout\s*=\s*(\d{1,9})/i;

/**
 * How long a connection may sit idle after this response before the server would close it, less a
 * margin, from its `Keep-Alive: timeout=N` header (N seconds); undefined when it does not say. A
 * request sent as the server closes the connection fails, so it is not sent on one that old.
 */
export const keepAliveIdleMs = (headers: Readonly<Record<string, string | string[]>>): number | undefined => {
  const value = headers['keep-alive'];
  if (value === undefined) return undefined;
  const seconds = KEEP_ALIVE_TIMEOUT.exec(String(value))?.[1];
  return seconds === undefined ? undefined : Math.max(0, Number(seconds) * 1000 - KEEP_ALIVE_MARGIN_MS);
};
