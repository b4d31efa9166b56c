import { isFieldValue, isToken } from './http-syntax.js';

/**
 * The head of an HTTP/1.1 request, as text. Every name and value is checked the way Node's own client
 * checks them: a value holding a line break (a key pasted with its newline, a header a client tried to
 * smuggle through) would otherwise end the header early and start a line of its own.
 */

/** A request target is sent as is: it must hold no space and no control character. */
const REQUEST_TARGET = /^[\x21-\x7e\x80-\xff]+$/;

export class InvalidRequestHeadError extends Error {
  override readonly name = 'InvalidRequestHeadError';
}

export interface RequestHeadParts {
  readonly method: string;
  readonly target: string;
  /** The Host header's value: the host, and the port unless it is the scheme's default. */
  readonly host: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Headers the connection decides: a caller's own would contradict the framing or the reuse. */
const CONNECTION_DECIDED = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * The request's head, ending with its blank line; `contentLength` is the body's length in bytes, when
 * there is a body. Throws `InvalidRequestHeadError`.
 */
export const requestHead = (parts: RequestHeadParts, contentLength: number | undefined): string => {
  if (!isToken(parts.method)) throw new InvalidRequestHeadError('invalid method');
  if (!REQUEST_TARGET.test(parts.target)) throw new InvalidRequestHeadError('invalid request target');
  if (!isFieldValue(parts.host)) throw new InvalidRequestHeadError('invalid host');
  let head = `${parts.method} ${parts.target} HTTP/1.1\r\nhost: ${parts.host}\r\nconnection: keep-alive\r\n`;
  const { headers } = parts;
  const names = Object.keys(headers);
  const lowerNames = names.map((name) => name.toLowerCase());
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!;
    const value = headers[name]!;
    // Neither an invalid name nor any value is told back: either may hold a key.
    if (!isToken(name)) throw new InvalidRequestHeadError('invalid header name');
    if (typeof value !== 'string' || !isFieldValue(value))
      throw new InvalidRequestHeadError(`invalid value for header ${name}`);
    const lower = lowerNames[index]!;
    if (CONNECTION_DECIDED.has(lower)) continue;
    // Names are case-insensitive: of two that differ only in case (a channel's own `Authorization`
    // over a provider's `authorization`), the later alone is sent, as Node's client sends it.
    if (lowerNames.indexOf(lower, index + 1) !== -1) continue;
    head += `${name}: ${value}\r\n`;
  }
  if (contentLength !== undefined) head += `content-length: ${contentLength}\r\n`;
  return `${head}\r\n`;
};
