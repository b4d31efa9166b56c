import type { ReceivedRequest, WireRoute } from './fake-upstream.js';

/** A refusal in the vendor's own shape: status and body as the vendor sends them. */
export interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/** Routes that first check each request as strictly as the vendor does, answering a refusal instead. */
export const strictRoutes = (
  routes: Record<string, WireRoute>,
  check: (request: ReceivedRequest) => Refusal | undefined,
): Record<string, WireRoute> =>
  Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, WireRoute] => [
      key,
      (exchange) => {
        const refusal = check(exchange.request);
        if (!refusal) return route(exchange);
        exchange.response.writeHead(refusal.status, { 'content-type': 'application/json' });
        exchange.response.end(JSON.stringify(refusal.body));
      },
    ]),
  );
