import { nullPrototypeRecord } from '../http/null-prototype.js';
import type { GatewayMiddyRequest } from './gateway-context.js';

/** Lower-cases header names and flattens the query string, once, for everything after it. */
export const normalizeHeaders = () => {
  const normalizeHeadersBefore = (request: GatewayMiddyRequest): void => {
    const { event, context } = request;
    const headers = nullPrototypeRecord<string>();
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = value;
    }
    context.gateway.headers = headers;
    const query = nullPrototypeRecord<string>();
    for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
      if (value !== undefined && value !== null) query[name] = value;
    }
    context.gateway.query = query;
  };
  return { before: normalizeHeadersBefore };
};
