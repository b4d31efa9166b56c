import { methodNotAllowed, unknownUrl } from '../errors.js';
import type { GatewayResponse } from '../http/response.js';
import type { GatewayRequest } from './gateway-handler.js';
import { onFirstRequest } from './on-first-request.js';

/** One route of a function that serves several (the admin API, the console). */
export type Route = (request: GatewayRequest<unknown>) => Promise<GatewayResponse>;

/** The routes a module exports by name, each of its own loaded on its first request (`onFirstRequest`). */
type RouteNames<Module> = { [Name in keyof Module]: Module[Name] extends Route ? Name : never }[keyof Module];

/**
 * A module's routes, loaded when one of them is first asked for: `keys('list')` is the `list` route of
 * the module `keys` imports.
 */
export const routesIn =
  <Module>(load: () => Promise<Module>) =>
  (name: RouteNames<Module>): Route =>
    onFirstRequest(async () => (await load())[name] as Route);

/**
 * One handler for a table of routes by `METHOD resource`, as API Gateway names the matched route.
 * A pair the table lacks (the API routes only what the table has) is answered as the fallback
 * function would: 405 with the methods the resource takes, else 404.
 */
export const routeTable =
  (routes: Readonly<Record<string, Route>>): Route =>
  async (request) => {
    const { httpMethod, resource, path } = request.event;
    const route = routes[`${httpMethod} ${resource}`];
    if (route) return route(request);
    const allowed = Object.keys(routes)
      .filter((pair) => pair.endsWith(` ${resource}`))
      .map((pair) => pair.slice(0, pair.indexOf(' ')));
    if (allowed.length > 0) throw methodNotAllowed(httpMethod, path, allowed);
    throw unknownUrl(httpMethod, path);
  };
