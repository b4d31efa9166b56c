import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

type StreamingEntry = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<unknown>;

declare const awslambda: { streamifyResponse: <T>(handler: T) => T };

/**
 * One streaming Lambda entry for a group that serves several routes (chat completions, messages,
 * responses): API Gateway names the matched resource in the event, and each route keeps its own
 * middleware stack (schema, key carriers, error envelope). An unknown resource goes to the
 * `fallback` resource's route. A route may load on its first request (`onFirstRequest`).
 */
export const routeStreamingByResource = (routes: Readonly<Record<string, unknown>>, fallback: string) => {
  // A map, not the object: a resource named like an object's own member must not reach it.
  const entries = new Map(Object.entries(routes) as [string, StreamingEntry][]);
  const fallbackEntry = entries.get(fallback)!;
  return awslambda.streamifyResponse((event: APIGatewayProxyEvent, responseStream: Writable, context: Context) =>
    (entries.get(event.resource) ?? fallbackEntry)(event, responseStream, context),
  );
};
