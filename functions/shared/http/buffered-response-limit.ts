import { GatewayError } from '../errors.js';
import type { GatewayResponse } from './response.js';

/**
 * Lambda refuses a buffered (non-streamed) answer whose invocation payload (the proxy result as JSON,
 * body included) passes 6 MB, and API Gateway then answers a bare 502 whatever the function meant to
 * say. Groups whose answers can grow that large are streamed (routes.ts); in the others, an answer
 * over the limit is refused here, while there is still time to send a proper envelope instead.
 */
export const BUFFERED_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

// A UTF-16 code unit takes at most 6 bytes once escaped for JSON (`\u001f`), and the rest of the
// result (status, headers) stays well under the margin: bodies under this size need no measuring.
const SAFE_BODY_LENGTH = Math.floor((BUFFERED_RESPONSE_LIMIT_BYTES - 64 * 1024) / 6);

/**
 * The size of the payload Lambda would return for this proxy result, when it passes the limit;
 * `undefined` when it fits. Only a large body is measured: most answers cost one length check.
 */
export const bufferedPayloadOverLimit = (result: { readonly body?: unknown } | undefined): number | undefined => {
  const body = result?.body;
  if (typeof body !== 'string' || body.length <= SAFE_BODY_LENGTH) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  return bytes > BUFFERED_RESPONSE_LIMIT_BYTES ? bytes : undefined;
};

export const responseTooLarge = (bytes: number) =>
  new GatewayError(
    `The answer (${bytes} bytes) is larger than the ${BUFFERED_RESPONSE_LIMIT_BYTES} bytes a buffered response may carry. Ask for less at a time (a smaller page with limit=, fewer items).`,
    { status: 502, type: 'server_error', code: 'response_too_large', expose: true },
  );

/** Middleware of buffered functions: an answer over Lambda's limit becomes the envelope of a 502. */
export const bufferedResponseLimit = () => {
  const bufferedResponseLimitAfter = (request: { response: unknown }): void => {
    const bytes = bufferedPayloadOverLimit(request.response as GatewayResponse | undefined);
    if (bytes !== undefined) throw responseTooLarge(bytes);
  };
  return { after: bufferedResponseLimitAfter };
};
