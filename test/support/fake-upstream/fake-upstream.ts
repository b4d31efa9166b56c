import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { openAiRoutes } from './openai-wire.js';

/** A request the fake received, for asserting what the gateway sent upstream. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
}

/**
 * A failure to inject into the next request: a delay before answering, an error status, a reset
 * connection, a malformed event stream, a stream that stalls or is cut after a few events.
 */
export type Fault =
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'reset' }
  | { readonly kind: 'malformed-sse' }
  | { readonly kind: 'stall-mid-stream'; readonly afterEvents: number }
  | { readonly kind: 'cut-mid-stream'; readonly afterEvents: number }
  | { readonly kind: 'slow-stream'; readonly gapMs: number };

export interface FakeExchange {
  readonly request: ReceivedRequest;
  readonly response: ServerResponse;
  readonly fault: Fault | undefined;
}

export type WireRoute = (exchange: FakeExchange) => Promise<void> | void;

export interface FakeUpstream {
  /** The API root as a channel's `baseUrl` takes it, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  readonly origin: string;
  readonly received: ReceivedRequest[];
  /** Queues faults for the next requests, one per request. */
  inject(...faults: Fault[]): void;
  /** Drops faults no request has taken yet, so that one test's leftovers cannot reach the next. */
  clearFaults(): void;
  /** Connections the fake saw closed by the other side before it finished answering. */
  readonly abortedByClient: number;
  close(): Promise<void>;
}

const readJson = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
};

/** A real HTTP server speaking the vendors' wire formats, with faults on demand. */
export const startFakeUpstream = async (routes: Record<string, WireRoute> = openAiRoutes): Promise<FakeUpstream> => {
  const received: ReceivedRequest[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();
  let abortedByClient = 0;

  const server: Server = createServer(async (incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://fake');
    const request: ReceivedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname + url.search,
      headers: incoming.headers,
      body: await readJson(incoming),
    };
    received.push(request);
    response.once('close', () => {
      if (!response.writableFinished) abortedByClient += 1;
    });
    let fault = faults.shift();
    if (fault?.kind === 'delay') {
      const { ms } = fault;
      await new Promise((resolve) => setTimeout(resolve, ms));
      fault = undefined;
    }
    if (fault?.kind === 'reset') {
      incoming.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      response.end(JSON.stringify(fault.body ?? { error: { message: `injected ${fault.status}`, type: 'server_error', param: null, code: null } }));
      return;
    }
    const route = routes[`${request.method} ${url.pathname}`];
    if (!route) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `fake upstream has no ${request.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } }));
      return;
    }
    await route({ request, response, fault });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    received,
    inject: (...more) => faults.push(...more),
    clearFaults: () => faults.splice(0),
    get abortedByClient() {
      return abortedByClient;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
