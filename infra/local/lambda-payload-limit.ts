import {
  BUFFERED_RESPONSE_LIMIT_BYTES,
  bufferedPayloadOverLimit,
} from '../../functions/shared/http/buffered-response-limit.js';
import { log } from '../../functions/shared/log.js';

/**
 * What Lambda does with a buffered answer over its 6 MB payload limit: it fails the invocation
 * ("Response payload size exceeded"), and API Gateway gives the client a 502 with its own bare body,
 * never a truncated answer. The gateway refuses such answers itself first (buffered-response-limit.ts);
 * this is what the client would see of one that slipped through.
 */
export const overPayloadLimit = (
  result: { readonly body?: unknown } | undefined,
  functionName: string,
): { statusCode: number; headers: Record<string, string>; body: string } | undefined => {
  const bytes = bufferedPayloadOverLimit(result);
  if (bytes === undefined) return undefined;
  log.error('Response payload size exceeded maximum allowed payload size', {
    functionName,
    bytes,
    limit: BUFFERED_RESPONSE_LIMIT_BYTES,
  });
  return {
    statusCode: 502,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalServerErrorException' },
    body: JSON.stringify({ message: 'Internal server error' }),
  };
};
