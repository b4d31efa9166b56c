import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../functions/shared/errors.js';
import { errorFormatForTarget } from '../../functions/shared/http/error-format.js';
import { errorAnswer } from './invoke-handler.js';

interface ParserError extends Error {
  readonly code?: string;
  /** The bytes the parser choked on, when node kept them. */
  readonly rawPacket?: Buffer;
}

/** How long the rest of a malformed request is read and dropped before the connection is cut. */
const DISCARD_TIMEOUT_MS = 5_000;

/** What the client did wrong, as the status and message it gets. */
const describe = (error: ParserError): GatewayError => {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new GatewayError('The request line and headers are larger than the server accepts.', {
      status: 431,
      type: 'invalid_request_error',
      code: 'headers_too_large',
    });
  }
  return new GatewayError('The request is not valid HTTP/1.1 (request line, headers or chunked body).', {
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_request',
  });
};

/** The target of the request line, when the bytes node kept start with one, for the error envelope. */
const targetOf = (rawPacket: Buffer | undefined): string => {
  const requestLine = /^[A-Z]+ (\/[^ \r\n]*)/.exec(rawPacket?.subarray(0, 2048).toString('latin1') ?? '');
  return requestLine?.[1] ?? '/';
};

/** Whether the request line, when the bytes node kept start with one, asks for the head only. */
const isHeadRequest = (rawPacket: Buffer | undefined): boolean =>
  rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';

/**
 * Node's `clientError` handler: a request the HTTP parser refused (bad request line, oversized or
 * malformed headers, broken chunked encoding) gets a JSON envelope, with a request id, instead of a
 * bare close. 431 for headers too large, 400 otherwise. The socket then reads and drops what the
 * client still sends, briefly, so that the client reads the answer rather than a reset.
 */
export const answerMalformedRequest = (error: ParserError, socket: Duplex): void => {
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = errorAnswer(describe(error), randomUUID(), errorFormatForTarget(targetOf(error.rawPacket)));
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of Object.entries({ ...answer.headers, connection: 'close' })) {
    for (const line of Array.isArray(value) ? value : [value]) head.push(`${name}: ${line}`);
  }
  const timer = setTimeout(() => socket.destroy(), DISCARD_TIMEOUT_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.on('end', () => socket.destroy());
  // An answer to HEAD has no body (its content-length still says what a GET would get), or the
  // client would read the body as the start of a next response.
  const body = isHeadRequest(error.rawPacket) ? Buffer.alloc(0) : answer.payload;
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  socket.resume();
};
