import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

type StreamingEntry = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<unknown>;

declare const awslambda: { streamifyResponse: <T>(handler: T) => T };

/**
 * One streaming Lambda entry for a group that serves several routes (chat completions, messages,
 * responses): API Gateway names the matched resource in the event, and each route keeps its own
 * middleware stack (schema, key carriers, error envelope).
 */
export const routeStreamingByResource = (routes: Readonly<Record<string, unknown>>, fallback: string) => {
  const entries = routes as Readonly<Record<string, StreamingEntry>>;
  return awslambda.streamifyResponse((event: APIGatewayProxyEvent, responseStream: Writable, context: Context) =>
    (entries[event.resource] ?? entries[fallback]!)(event, responseStream, context),
  );
};
