import { invalidValue } from '../../functions/shared/errors.js';

/** A request target (`/v1/models?key=…`) as the runtime routes it: the path and, when present, the query. */
export interface RequestTarget {
  /** Percent-encoded, as API Gateway passes a REST API's path on. */
  readonly path: string;
  readonly query: URLSearchParams | undefined;
}

/**
 * Paths a URL parser would give back unchanged: RFC 3986 path characters without `%` (an escaped dot
 * can make a dot segment), not starting with `//` (a host), without a dot segment (resolved). Nearly
 * every request's path is one of them, and a URL parse is a few microseconds of each.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;

export const parseRequestTarget = (target: string): RequestTarget => {
  if (PLAIN_PATH.test(target) && !DOT_SEGMENT.test(target)) return { path: target, query: undefined };
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    throw invalidValue('The request target is not a valid URL path.', null);
  }
  return { path: url.pathname, query: url.search === '' ? undefined : url.searchParams };
};
