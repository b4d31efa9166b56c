import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { errorResponse, type ErrorFormat } from '../../functions/shared/http/error-response.js';
import { promiseOf } from '../../functions/shared/promise-of.js';
import { overPayloadLimit } from './lambda-payload-limit.js';
import { isStreamingHandler, LocalResponseStream } from './lambda-streaming.js';
import type { OpenExchange } from './open-exchange.js';

type BufferedHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<BufferedResult>;

interface BufferedResult {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, readonly (string | number | boolean)[]>;
  body?: string;
  isBase64Encoded?: boolean;
}

export const lambdaContext = (functionName: string, requestId: string, timeoutSeconds: number): Context => {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly payload: Buffer;
}

/** A buffered Lambda result as the HTTP status, headers and body bytes it stands for. */
const httpAnswer = (result: BufferedResult | undefined): HttpAnswer => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result?.headers ?? {})) headers[name.toLowerCase()] = String(value);
  for (const [name, values] of Object.entries(result?.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values.map(String);
  }
  const body = result?.body ?? '';
  const payload = result?.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  headers['content-length'] = String(payload.length);
  return { status: result?.statusCode ?? 200, headers, payload };
};

const writeBuffered = (response: ServerResponse, result: BufferedResult | undefined): void => {
  const answer = httpAnswer(result);
  response.writeHead(answer.status, answer.headers);
  response.end(answer.payload);
};

/** The error envelope for a thrown value, in the given format, with the request's id. */
export const errorAnswer = (error: unknown, requestId: string, format: ErrorFormat): HttpAnswer => {
  const result = errorResponse(error, format);
  return httpAnswer({
    ...result,
    headers: { ...result.headers, 'x-request-id': requestId },
    body: String(result.body),
  });
};

/** Writes an error envelope unless the response has already started. */
export const writeError = (
  response: ServerResponse,
  error: unknown,
  requestId: string,
  format: ErrorFormat = 'openai',
): void => {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const answer = errorAnswer(error, requestId, format);
  response.writeHead(answer.status, answer.headers);
  response.end(answer.payload);
};

/**
 * Runs a Lambda handler, buffered or streaming, and sends what it produces as the HTTP response;
 * settles when the invocation has ended. A streaming invocation may run on after its response has
 * closed (its deferred writes): what waits on it then holds the response only while it is open
 * (`OpenExchange`), and not the event.
 */
export const invokeHandler = (
  handler: unknown,
  event: APIGatewayProxyEvent,
  context: Context,
  response: ServerResponse,
): Promise<void> =>
  isStreamingHandler(handler)
    ? (promiseOf(() => handler(event, new LocalResponseStream(response), context)) as Promise<void>)
    : invokeBuffered(handler as BufferedHandler, event, context, response);

/**
 * A streaming invocation's failure, answered with the path's envelope if its response has not begun;
 * one the client tore down, or one already complete, is not answered again.
 */
export const answerStreamingFailure = (
  error: unknown,
  exchange: OpenExchange,
  requestId: string,
  format: ErrorFormat,
): void => {
  const response = exchange.response;
  if (response && !response.destroyed && !response.writableEnded) writeError(response, error, requestId, format);
};

const invokeBuffered = async (
  handler: BufferedHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  response: ServerResponse,
): Promise<void> => {
  const result = await handler(event, context);
  writeBuffered(response, overPayloadLimit(result, context.functionName) ?? result);
};
