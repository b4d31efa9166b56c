import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { errorFormatForTarget } from '../../functions/shared/http/error-format.js';
import { log } from '../../functions/shared/log.js';
import { MAX_BODY_BYTES } from '../../functions/shared/middleware/json-body.js';
import { createRouter } from '../../functions/shared/routes.js';
import { answerEarly } from './answer-early.js';
import { answerCorsPreflight } from './cors-preflight.js';
import { functionTimeoutSeconds, withinFunctionTimeout, type FunctionTimeouts } from './function-timeout.js';
import { runAsFunction } from './function-scope.js';
import { loadHandler } from './handlers.js';
import { errorAnswer, invokeHandler, lambdaContext } from './invoke-handler.js';
import { whileOpen, type OpenExchange } from './open-exchange.js';
import { buildProxyEvent } from './proxy-event.js';
import { readBody, UploadAborted } from './read-body.js';
import { parseRequestTarget } from './request-target.js';

const lookup = createRouter();

/**
 * One HTTP request, as API Gateway and Lambda would serve it: matched routes go to their group's
 * function, everything else to the fallback function. Every answer, the runtime's own early ones
 * included (malformed path, body too large), carries a request id and the path's error envelope.
 * Settles when the invocation has ended, its work after the response included; never rejects.
 */
export const handleRequest = async (
  request: IncomingMessage,
  response: ServerResponse,
  options: { readonly functionTimeouts?: FunctionTimeouts } = {},
): Promise<void> => {
  if (answerCorsPreflight(request, response)) return;
  const requestId = randomUUID();
  const target = request.url ?? '/';
  const exchange = whileOpen(request, response);
  try {
    const parsed = parseRequestTarget(target);
    const found = lookup(request.method ?? 'GET', parsed.path);
    const group = found.kind === 'found' ? found.match.route.group : 'fallback';
    const event = buildProxyEvent({
      request,
      target: parsed,
      body: await readBody(request, MAX_BODY_BYTES),
      resource: found.kind === 'found' ? found.match.route.path : '/{proxy+}',
      pathParameters: found.kind === 'found' ? found.match.pathParameters : { proxy: parsed.path.slice(1) },
      requestId,
    });
    const timeoutSeconds = functionTimeoutSeconds(group, options.functionTimeouts);
    const context = lambdaContext(`model-gateway-${group}`, requestId, timeoutSeconds);
    const handler = await loadHandler(group);
    const invocation = runAsFunction(group, () => invokeHandler(handler, event, context, response, exchange));
    // Returned, not awaited: this frame (the request, the event) is let go while the invocation runs on.
    return answerOnFailure(
      withinFunctionTimeout(invocation, { functionName: context.functionName, requestId, timeoutSeconds }, exchange),
      exchange,
      requestId,
      target,
    );
  } catch (error) {
    failed(error, exchange, requestId, target);
  }
};

const answerOnFailure = (
  invocation: Promise<void>,
  exchange: OpenExchange,
  requestId: string,
  target: string,
): Promise<void> => invocation.catch((error: unknown) => failed(error, exchange, requestId, target));

/** A request that failed in the runtime or its handler: logged, and answered while its response is open. */
const failed = (error: unknown, exchange: OpenExchange, requestId: string, target: string): void => {
  // Gone, or answered already by the server's `clientError` handler (a malformed chunked body).
  if (error instanceof UploadAborted) return;
  const status = (error as { status?: number }).status;
  if (!status || status >= 500) log.error('local runtime failed a request', { requestId, error: String(error) });
  const { request, response } = exchange;
  if (!request || !response) return;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  answerEarly(request, response, errorAnswer(error, requestId, errorFormatForTarget(target)));
};
