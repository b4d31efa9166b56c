import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

type StreamingEntry = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<unknown>;

/** A route whose module is imported on its first request (see `onFirstRequest`). */
interface DeferredRoute {
  readonly load: () => Promise<unknown>;
}

declare const awslambda: { streamifyResponse: <T>(handler: T) => T };

const isDeferred = (route: unknown): route is DeferredRoute =>
  typeof route === 'object' && route !== null && typeof (route as DeferredRoute).load === 'function';

/**
 * A route loaded when its first request arrives, not at the function's cold start: its code (the
 * translation of one client protocol, its request schema) is compiled and built only in instances
 * that serve it. Bundled as a chunk beside the entry.
 */
export const onFirstRequest = (load: () => Promise<unknown>): DeferredRoute => ({ load });

/**
 * One streaming Lambda entry for a group that serves several routes (chat completions, messages,
 * responses): API Gateway names the matched resource in the event, and each route keeps its own
 * middleware stack (schema, key carriers, error envelope).
 */
export const routeStreamingByResource = (routes: Readonly<Record<string, unknown>>, fallback: string) => {
  const entries = new Map<string, StreamingEntry | Promise<StreamingEntry>>();
  for (const [resource, route] of Object.entries(routes)) {
    if (!isDeferred(route)) entries.set(resource, route as StreamingEntry);
  }
  const entryOf = (resource: string): StreamingEntry | Promise<StreamingEntry> => {
    const known = entries.get(resource);
    if (known) return known;
    const route = routes[resource];
    if (!isDeferred(route)) return entries.get(fallback) ?? entryOf(fallback);
    // Loaded once per instance: concurrent first requests share the import.
    const loading = route.load().then((entry) => {
      entries.set(resource, entry as StreamingEntry);
      return entry as StreamingEntry;
    });
    loading.catch(() => entries.delete(resource));
    entries.set(resource, loading);
    return loading;
  };
  // Not async: a route already loaded is called directly, with no promise of the router's own.
  return awslambda.streamifyResponse((event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => {
    const entry = entryOf(event.resource);
    return typeof entry === 'function'
      ? entry(event, responseStream, context)
      : entry.then((loaded) => loaded(event, responseStream, context));
  });
};
