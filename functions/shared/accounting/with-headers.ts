import type { GatewayResponse } from '../http/response.js';

/** The response with extra headers (an admission's `x-ratelimit-*`); the response's own win. */
export const withHeaders = (response: GatewayResponse, headers: Readonly<Record<string, string>>): GatewayResponse =>
  Object.keys(headers).length === 0 ? response : { ...response, headers: { ...headers, ...response.headers } };
