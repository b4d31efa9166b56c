import { STATUS_CODES, type IncomingMessage } from 'node:http';
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

/** The envelope for `error` written on a socket no response object owns, and the rest of what the client sends dropped. */
const answerOnSocket = (socket: Duplex, error: GatewayError, target: string, headOnly: boolean): void => {
  const answer = errorAnswer(error, randomUUID(), errorFormatForTarget(target));
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of Object.entries({ ...answer.headers, connection: 'close' })) {
    for (const line of Array.isArray(value) ? value : [value]) head.push(`${name}: ${line}`);
  }
  const timer = setTimeout(() => socket.destroy(), DISCARD_TIMEOUT_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.on('end', () => socket.destroy());
  // An answer to HEAD has no body (its content-length still says what a GET would get), or the
  // client would read the body as the start of a next response.
  const body = headOnly ? Buffer.alloc(0) : answer.payload;
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  socket.resume();
};

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
  answerOnSocket(socket, describe(error), targetOf(error.rawPacket), isHeadRequest(error.rawPacket));
};

/** The methods the gateway's routes take: what a refused CONNECT is told to use instead. */
const SERVED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * Node's `connect` handler: the gateway is no proxy, so a CONNECT gets a 405 envelope where Node
 * would close the connection without a word (API Gateway refuses the method too).
 */
export const answerConnect = (request: IncomingMessage, socket: Duplex): void => {
  const refusal = new GatewayError('CONNECT is not served: the gateway is not a proxy.', {
    status: 405,
    type: 'invalid_request_error',
    code: 'method_not_allowed',
    headers: { allow: SERVED_METHODS },
  });
  // The target of a CONNECT is an authority, not a path: the envelope is the default one.
  answerOnSocket(socket, refusal, request.url?.startsWith('/') ? request.url : '/', false);
};

/** An HTTP/1.1 request without a Host header, which HTTP/1.1 requires (RFC 9112, section 3.2). */
export const missingHost = (): GatewayError =>
  new GatewayError('An HTTP/1.1 request must carry a Host header.', {
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_request',
  });

/** A request whose `Expect` header asks for something other than `100-continue` (RFC 9110, section 10.1.1). */
export const expectationFailed = (): GatewayError =>
  new GatewayError('The Expect header can only ask for 100-continue.', {
    status: 417,
    type: 'invalid_request_error',
    code: 'expectation_failed',
  });
