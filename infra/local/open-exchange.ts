import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A request and its response, for as long as the response is open. What waits on an invocation (its
 * timeout, its failure) may still have to answer or cut the response; once the response has closed
 * there is nothing left to do with either, and an invocation that runs on after it (its usage record
 * waiting on a batched write) must not keep them and their buffers alive. Under load, held exchanges
 * outlived V8's young generation and made every scavenge copy them.
 */
export interface OpenExchange {
  readonly request: IncomingMessage | undefined;
  readonly response: ServerResponse | undefined;
}

export const whileOpen = (request: IncomingMessage, response: ServerResponse): OpenExchange => {
  const exchange: { request: IncomingMessage | undefined; response: ServerResponse | undefined } = {
    request,
    response,
  };
  response.once('close', () => {
    exchange.request = undefined;
    exchange.response = undefined;
  });
  return exchange;
};
