import type { GatewayResponse } from '../http/response.js';
import type { GatewayRequest } from './gateway-handler.js';

/** One route of a function that serves several (the admin API, the console). */
export type Route = (request: GatewayRequest<unknown>) => Promise<GatewayResponse>;

/**
 * A route whose module (its schemas, its store reads) is imported on its first request, so that a
 * cold start compiles the route it serves rather than all of them; bundled as a chunk beside the
 * entry. Concurrent first requests share the import; a failed one is tried again on the next.
 */
export const onDemand = (load: () => Promise<Route>): Route => {
  let loading: Promise<Route> | undefined;
  return async (request) => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return (await loading)(request);
  };
};
