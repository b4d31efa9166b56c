import { Readable, type Writable } from 'node:stream';
import { nothing } from '../promise-of.js';

/**
 * The middy execution mode of the streaming functions: middy's own response-streaming mode, except
 * for how a stream body reaches Lambda's response stream. Node's `stream.pipeline` makes an
 * AbortController for every call and aborts it when the copy ends, which builds a DOMException with a
 * captured stack trace: about 50 µs of CPU on every streamed response, a twentieth of a relayed
 * stream's whole cost. `pumpInto` copies with `pipe` and the same outcomes: the body's failure
 * destroys the response stream, the response stream's failure or early close (the client left)
 * destroys the body, and it settles when the response has finished. Bodies are strings or Node
 * streams: middy also takes web streams, which no handler here returns, and `node:stream/web` alone
 * is about 7 ms of every cold start.
 */

interface StreamingPrelude {
  readonly statusCode?: number;
  readonly headers?: Record<string, unknown>;
  readonly body?: unknown;
}

declare const awslambda: {
  streamifyResponse: <T>(handler: T) => T;
  HttpResponseStream: { from(stream: Writable, prelude: object): Writable };
};

class PrematureCloseError extends Error {
  override readonly name = 'PrematureCloseError';
}

/**
 * Once a copy into a stream is over, its error listener gives way to a no-op made once: a late error
 * is still heard (an unheard one would bring the process down), and the stream, which Node keeps past
 * young collections (its state holds a closure made in its constructor), no longer keeps the copy's
 * listener and all it reaches (the body, and a stream's whole state behind it).
 */
const letGo = (stream: Readable | Writable, listener: (error: Error) => void): void => {
  stream.off('error', listener);
  stream.on('error', nothing);
};

/** Copies `body` into `destination` and ends it; rejects, with both streams destroyed, if either fails. */
export const pumpInto = (body: Readable, destination: Writable): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    let settled = false;
    // An error listener stays on each stream: a stream destroyed with an error emits it, and an error
    // nobody hears would bring the process down. Settling twice does nothing.
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      letGo(body, settle);
      letGo(destination, settle);
      if (!error) return resolve();
      body.unpipe(destination);
      body.destroy(error);
      destination.destroy(error);
      reject(error);
    };
    const closed = () => {
      if (!destination.writableFinished)
        settle(new PrematureCloseError('the response stream closed before the body ended'));
    };
    const finished = () => settle();
    body.on('error', settle);
    destination.on('error', settle);
    destination.once('close', closed);
    destination.once('finish', finished);
    body.pipe(destination);
  });

const writeWhole = (destination: Writable, body: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    destination.once('error', reject);
    destination.end(body, () => {
      letGo(destination, reject);
      resolve();
    });
  });

/**
 * Holds the prelude back until the end of this turn of the event loop, so that it leaves with the
 * body's first bytes when they are already here (an upstream's head and first event mostly come in
 * one packet): one write to the Runtime API instead of two. Each write is a system call that wakes the
 * receiving side, and the second one came about 0.25 ms after the first, which delayed a stream's
 * first byte by as much. A body whose first bytes are not here yet finds its prelude sent at the end
 * of the turn, as before.
 */
const holdForFirstBytes = (destination: Writable): void => {
  destination.cork();
  setImmediate(() => destination.uncork());
};

/** Settles as the invocation ends: with the body's failure if it had one, else with requestEnd's. */
const endInvocation = (ending: Promise<void>, failure: { readonly error: unknown } | undefined): Promise<void> =>
  // Without a failure, `ending` itself: an async function waiting on it was one more suspended frame
  // for every invocation waiting on its usage record.
  failure ? endAfterFailure(ending, failure.error) : ending;

const endAfterFailure = async (ending: Promise<void>, error: unknown): Promise<void> => {
  try {
    await ending;
  } catch {
    // The body's failure is the invocation's: the hook's own comes second.
  }
  throw error;
};

/* eslint-disable @typescript-eslint/no-explicit-any -- middy's execution-mode contract is untyped */
export const executionModeStreamedResponse = (
  { middyRequest, runRequest }: { middyRequest: any; runRequest: any },
  beforeMiddlewares: unknown[],
  lambdaHandler: unknown,
  afterMiddlewares: unknown[],
  onErrorMiddlewares: unknown[],
  plugin: any,
) => {
  let handlerOfRequests = lambdaHandler;
  const handler = awslambda.streamifyResponse(async (event: unknown, lambdaStream: Writable, context: unknown) => {
    const request = middyRequest(event, context);
    plugin.requestStart(request);
    const response = (await runRequest(
      request,
      beforeMiddlewares,
      handlerOfRequests,
      afterMiddlewares,
      onErrorMiddlewares,
      plugin,
    )) as StreamingPrelude | string | null | undefined;
    let destination = lambdaStream;
    let body: unknown = response ?? '';
    if (typeof response === 'object' && response?.statusCode) {
      const { body: responseBody, ...prelude } = response;
      body = responseBody ?? '';
      destination = awslambda.HttpResponseStream.from(lambdaStream, prelude);
      if (body instanceof Readable) holdForFirstBytes(destination);
      // Sends the status and headers at once: a client waiting on a slow first token already sees them.
      // Needed for a whole body too: under AWS's runtime client, a body given to `end` alone goes out
      // without the prelude's delimiter (test/infra/bundle.test.ts runs it there).
      destination.write('');
    }
    let failure: { readonly error: unknown } | undefined;
    try {
      if (typeof body === 'string') await writeWhole(destination, body);
      else if (body instanceof Readable) await pumpInto(body, destination);
      else throw new Error('the handler answered a body that is neither a string nor a Node stream');
    } catch (error) {
      failure = { error };
    }
    // Returned, not awaited: this function's frame (the event, the response and its body) is let go
    // while the invocation waits on its deferred work.
    return endInvocation(plugin.requestEnd(request), failure);
  });
  return Object.assign(handler, {
    handler: (replacement: unknown) => {
      handlerOfRequests = replacement;
      return handler;
    },
  });
};
/* eslint-enable @typescript-eslint/no-explicit-any */
