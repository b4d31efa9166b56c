import type { GatewayMiddyRequest } from './gateway-context.js';

/**
 * Tells the client how long the gateway itself took (`x-gateway-overhead-ms`, and `Server-Timing`
 * with the upstream's share), on every response, errors included. It runs when the response head is
 * final: for a stream that is its first byte, so the figure is the overhead up to the first byte.
 */
export const timingHeaders = () => {
  const timingHeadersAfter = (request: GatewayMiddyRequest): void => {
    const trace = request.context.gateway?.trace;
    const response = request.response as { headers?: Record<string, string> } | undefined;
    if (!trace || !response || typeof response !== 'object') return;
    trace.responseHead();
    response.headers = { ...response.headers, ...trace.timingHeaders() };
  };
  return { after: timingHeadersAfter, onError: timingHeadersAfter };
};
