import { randomUUID } from 'node:crypto';
import { errorFormatForTarget } from '../http/error-format.js';
import type { ErrorFormat } from '../http/error-response.js';
import { nullPrototypeRecord } from '../http/null-prototype.js';
import { RequestTrace } from '../observability/request-trace.js';
import type { GatewayMiddyRequest } from './gateway-context.js';

export interface RequestIdOptions {
  /** The envelope of this endpoint's errors; absent: the one the request's path calls for. */
  readonly errorFormat?: ErrorFormat;
}

/**
 * Gives every request an id (API Gateway's when there is one) and puts it in `x-request-id` on every
 * response, errors included. Registered first so its `after`/`onError` run last, over the final response.
 */
export const requestId = (options: RequestIdOptions = {}) => {
  const requestIdBefore = (request: GatewayMiddyRequest): void => {
    request.context.gateway = {
      requestId: request.event.requestContext?.requestId || `req_${randomUUID().replaceAll('-', '')}`,
      headers: nullPrototypeRecord(),
      query: nullPrototypeRecord(),
      body: undefined,
      errorFormat: options.errorFormat ?? errorFormatForTarget(request.event.path ?? '/'),
      startedAt: Date.now(),
      trace: new RequestTrace(),
      pending: [],
    };
  };

  const requestIdAfter = (request: GatewayMiddyRequest): void => {
    const response = request.response as { headers?: Record<string, string> } | undefined;
    if (!response || typeof response !== 'object') return;
    response.headers = { ...response.headers, 'x-request-id': request.context.gateway.requestId };
  };

  return { before: requestIdBefore, after: requestIdAfter, onError: requestIdAfter };
};
