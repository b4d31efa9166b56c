import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { errorFormatForTarget } from '../../functions/shared/http/error-format.js';
import { log } from '../../functions/shared/log.js';
import { MAX_BODY_BYTES } from '../../functions/shared/middleware/json-body.js';
import { createRouter } from '../../functions/shared/routes.js';
import { answerEarly } from './answer-early.js';
import { answerCorsPreflight } from './cors-preflight.js';
import { functionTimeoutSeconds, holdToTimeout, type FunctionTimeouts, type Invocation } from './function-timeout.js';
import { runAsFunction } from './function-scope.js';
import { loadedHandler, loadHandler } from './handlers.js';
import { answerStreamingFailure, errorAnswer, invokeHandler, lambdaContext } from './invoke-handler.js';
import { isStreamingHandler } from './lambda-streaming.js';
import { whileOpen, type OpenExchange } from './open-exchange.js';
import { buildProxyEvent } from './proxy-event.js';
import { readBody, UploadAborted } from './read-body.js';
import { parseRequestTarget } from './request-target.js';

const lookup = createRouter();

export interface HandleRequestOptions {
  readonly functionTimeouts?: FunctionTimeouts;
}

/**
 * One HTTP request, as API Gateway and Lambda would serve it: matched routes go to their group's
 * function, everything else to the fallback function. Every answer, the runtime's own early ones
 * included (malformed path, body too large), carries a request id and the path's error envelope.
 * `ended` is called once, when the invocation has ended (its work after the response included) or
 * its timeout has stopped it; nothing here throws.
 */
export const handleRequest = (
  request: IncomingMessage,
  response: ServerResponse,
  ended: () => void,
  options: HandleRequestOptions = {},
): void => {
  let served: ServedRequest;
  try {
    if (answerCorsPreflight(request, response)) return ended();
    served = new ServedRequest(randomUUID(), request.url ?? '/', whileOpen(request, response), ended);
  } catch (error) {
    // Nothing of the runtime's should throw here; if it does, the connection is not left hanging.
    log.error('local runtime failed a request', { error: String(error) });
    response.destroy();
    return ended();
  }
  readBody(request, MAX_BODY_BYTES).then((body) => served.invoke(request, response, body, options), served.failed);
};

/**
 * A request from its body's arrival to the end of its invocation. Callbacks on one object, not a
 * promise for each layer of the runtime: under load hundreds of invocations wait on their usage
 * records after their responses, and all that waits on them outlives young collections with them.
 */
class ServedRequest {
  private streaming = false;

  constructor(
    readonly requestId: string,
    private readonly target: string,
    private readonly exchange: OpenExchange,
    private readonly ended: () => void,
  ) {}

  /** Builds the invocation of the request's function, and starts it once the function is loaded. */
  invoke(request: IncomingMessage, response: ServerResponse, body: Buffer, options: HandleRequestOptions): void {
    try {
      const parsed = parseRequestTarget(this.target);
      const found = lookup(request.method ?? 'GET', parsed.path);
      const group = found.kind === 'found' ? found.match.route.group : 'fallback';
      const event = buildProxyEvent({
        request,
        target: parsed,
        body,
        resource: found.kind === 'found' ? found.match.route.path : '/{proxy+}',
        pathParameters: found.kind === 'found' ? found.match.pathParameters : { proxy: parsed.path.slice(1) },
        requestId: this.requestId,
      });
      const timed: Invocation = {
        functionName: `model-gateway-${group}`,
        requestId: this.requestId,
        timeoutSeconds: functionTimeoutSeconds(group, options.functionTimeouts),
      };
      const context = lambdaContext(timed.functionName, this.requestId, timed.timeoutSeconds);
      const run = (handler: unknown) =>
        this.run(
          runAsFunction(group, () => invokeHandler(handler, event, context, response)),
          isStreamingHandler(handler),
          timed,
        );
      const handler = loadedHandler(group);
      if (handler !== undefined) run(handler);
      else loadHandler(group).then(run, this.failed);
    } catch (error) {
      this.failed(error);
    }
  }

  private run(invocation: Promise<void>, streaming: boolean, timed: Invocation): void {
    this.streaming = streaming;
    holdToTimeout(invocation, timed, this.exchange, this.invocationEnded);
  }

  /** The invocation ended, or its timeout stopped it: its failure answered on the path's terms. */
  private readonly invocationEnded = (failure: { readonly error: unknown } | undefined): void => {
    if (!failure) return this.ended();
    if (this.streaming)
      answerStreamingFailure(failure.error, this.exchange, this.requestId, errorFormatForTarget(this.target));
    else this.answerFailure(failure.error);
    this.ended();
  };

  /** The runtime failed the request before its invocation ran. */
  readonly failed = (error: unknown): void => {
    this.answerFailure(error);
    this.ended();
  };

  /** A request that failed in the runtime or its handler: logged, and answered while its response is open. */
  private answerFailure(error: unknown): void {
    // Gone, or answered already by the server's `clientError` handler (a malformed chunked body).
    if (error instanceof UploadAborted) return;
    const status = (error as { status?: number }).status;
    if (!status || status >= 500)
      log.error('local runtime failed a request', { requestId: this.requestId, error: String(error) });
    const { request, response } = this.exchange;
    if (!request || !response) return;
    if (response.headersSent) {
      response.destroy();
      return;
    }
    answerEarly(request, response, errorAnswer(error, this.requestId, errorFormatForTarget(this.target)));
  }
}
