import { nullPrototypeRecord } from '../http/null-prototype.js';
import type { GatewayMiddyRequest } from './gateway-context.js';

/** The entries of an event's map that hold a value, under `nameOf` their name. */
const definedEntries = (
  from: Record<string, string | undefined> | null | undefined,
  nameOf: (name: string) => string,
): Record<string, string> => {
  const entries = nullPrototypeRecord<string>();
  if (!from) return entries;
  // Own names only, as Object.entries reads them, without an array for each entry.
  for (const name of Object.keys(from)) {
    const value = from[name];
    if (value !== undefined && value !== null) entries[nameOf(name)] = value;
  }
  return entries;
};

/** Lower-cases header names and flattens the query string, once, for everything after it. */
export const normalizeHeaders = () => {
  const normalizeHeadersBefore = (request: GatewayMiddyRequest): void => {
    const { event, context } = request;
    context.gateway.headers = definedEntries(event.headers, (name) => name.toLowerCase());
    context.gateway.query = definedEntries(event.queryStringParameters, (name) => name);
  };
  return { before: normalizeHeadersBefore };
};
