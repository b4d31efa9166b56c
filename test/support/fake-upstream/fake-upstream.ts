import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { echoEvent, type EchoEventFormat } from './echo-events.js';
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
 *
 * `echo` and `echo-mid-stream` play an upstream that quotes the request it got (method, URL, every
 * header, the body) in its error message, as many OpenAI-compatible servers do: `echo` answers an
 * error status with that message in every field the vendors' error bodies have; `echo-mid-stream`
 * sends it as an error event after a few events, framed by `event` in the wire's own format.
 */
export type Fault =
  | { readonly kind: 'delay'; readonly ms: number }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly body?: unknown;
      readonly headers?: Record<string, string>;
    }
  | { readonly kind: 'reset' }
  | { readonly kind: 'malformed-sse' }
  | { readonly kind: 'stall-mid-stream'; readonly afterEvents: number }
  | { readonly kind: 'cut-mid-stream'; readonly afterEvents: number }
  | { readonly kind: 'slow-stream'; readonly gapMs: number }
  /** Each event after the first waits for `gate(index)`: a test decides when the next one leaves (in-process only). */
  | { readonly kind: 'gated-stream'; readonly gate: (index: number) => Promise<void> }
  | { readonly kind: 'echo'; readonly status: number; readonly headers?: Record<string, string> }
  | {
      readonly kind: 'echo-mid-stream';
      readonly afterEvents: number;
      /** The event, made from the echo here, or named (a fake in another process builds it). */
      readonly event: ((echo: string) => string | Uint8Array) | EchoEventFormat;
    }
  | { readonly kind: 'error-mid-stream'; readonly afterEvents: number; readonly event: string | Uint8Array };

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
  /** What the fake received so far, read in place: only a fake in the test's own process has it. */
  readonly received: ReceivedRequest[];
  /** What the fake received so far, wherever it runs (in this process, another one, or a Lambda function). */
  receivedRequests(): Promise<readonly ReceivedRequest[]>;
  /** Queues faults for the next requests, one per request; settled once the fake holds them. */
  inject(...faults: Fault[]): Promise<void>;
  /** Drops faults no request has taken yet, so that one test's leftovers cannot reach the next. */
  clearFaults(): Promise<void>;
  /** Connections the fake saw closed by the other side before it finished answering (in-process only). */
  readonly abortedByClient: number;
  /** The same count, wherever the fake runs. */
  abortedCount(): Promise<number>;
  /** TCP connections accepted so far (in-process only): fewer than requests means keep-alive reuse. */
  readonly connectionsAccepted: number;
  close(): Promise<void>;
}

/**
 * Where a fake keeps what must outlive one request: the faults still to serve and what it received.
 * In memory for one process; in a table when several instances serve one fake (a Lambda function).
 */
export interface FakeState {
  takeFault(): Promise<Fault | undefined>;
  record(request: ReceivedRequest): Promise<void>;
  noteAbortedByClient(): Promise<void>;
}

const readBody = async (request: IncomingMessage): Promise<{ text: string; parsed: unknown }> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, parsed: text ? JSON.parse(text) : undefined };
  } catch {
    return { text, parsed: text };
  }
};

/** Header values that carry a credential, quoted alone as "Incorrect API key provided: …" messages do. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'x-amz-security-token'];

/** The request as an echoing upstream quotes it: every header several ways, the URL, the body. */
export const echoOfRequest = (incoming: IncomingMessage, bodyText: string): string => {
  const credentials = CREDENTIAL_HEADERS.map((name) => incoming.headers[name])
    .filter((value): value is string => typeof value === 'string')
    .map((value) => value.replace(/^Bearer\s+/i, ''));
  return [
    `Incorrect API key provided: ${credentials.join(', ')}.`,
    `Request: ${incoming.method} http://${incoming.headers.host}${incoming.url}`,
    `Headers: ${JSON.stringify(incoming.headers)}`,
    `Raw headers: ${JSON.stringify(incoming.rawHeaders)}`,
    `URL-encoded: ${encodeURIComponent(credentials.join('&'))}`,
    `Body: ${bodyText}`,
  ].join('\n');
};

/** An error body every vendor's parser reads: OpenAI's, Anthropic's, Google's and Bedrock's fields at once. */
const echoErrorBody = (status: number, echo: string) => ({
  type: 'error',
  message: echo,
  error: { message: echo, type: echo, param: echo, code: status, status: 'INVALID_ARGUMENT' },
});

/**
 * Answers one request as the fake: records it, applies the next fault, and otherwise answers from
 * the routes of the wire formats it speaks. Any host runs it: a server in the test's process, a
 * separate process, a Lambda function.
 */
export const answerAsFake =
  (routes: Record<string, WireRoute>, state: FakeState) =>
  async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(incoming.url ?? '/', 'http://fake');
    const body = await readBody(incoming);
    const request: ReceivedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname + url.search,
      headers: incoming.headers,
      body: body.parsed,
    };
    await state.record(request);
    response.once('close', () => {
      if (!response.writableFinished) void state.noteAbortedByClient();
    });
    let fault = await state.takeFault();
    if (fault?.kind === 'delay') {
      const { ms } = fault;
      await new Promise((resolve) => setTimeout(resolve, ms));
      fault = undefined;
    }
    if (fault?.kind === 'reset') {
      incoming.socket.destroy();
      return;
    }
    if (fault?.kind === 'echo') {
      response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      response.end(JSON.stringify(echoErrorBody(fault.status, echoOfRequest(incoming, body.text))));
      return;
    }
    if (fault?.kind === 'echo-mid-stream') {
      fault = {
        kind: 'error-mid-stream',
        afterEvents: fault.afterEvents,
        event:
          typeof fault.event === 'string'
            ? echoEvent(fault.event, echoOfRequest(incoming, body.text))
            : fault.event(echoOfRequest(incoming, body.text)),
      };
    }
    if (fault?.kind === 'status') {
      response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      response.end(
        JSON.stringify(
          fault.body ?? {
            error: { message: `injected ${fault.status}`, type: 'server_error', param: null, code: null },
          },
        ),
      );
      return;
    }
    const route = routes[`${request.method} ${url.pathname}`];
    if (!route) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `fake upstream has no ${request.method} ${url.pathname}`,
            type: 'invalid_request_error',
            param: null,
            code: 'unknown_url',
          },
        }),
      );
      return;
    }
    try {
      await route({ request, response, fault });
    } catch (error) {
      // A request the fake cannot read is one a real upstream refuses: its 400, not a crash of the test process.
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `fake upstream could not read the request: ${String(error)}`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        }),
      );
    }
  };

/** A fake's state in this process's memory. */
export const memoryFakeState = (
  /** Applied to each request that finds no fault queued (the bench's paced upstream: `slow-stream`). */
  standing?: Fault,
): FakeState & {
  readonly received: ReceivedRequest[];
  readonly faults: Fault[];
  readonly aborted: () => number;
} => {
  const received: ReceivedRequest[] = [];
  const faults: Fault[] = [];
  let abortedByClient = 0;
  return {
    received,
    faults,
    aborted: () => abortedByClient,
    takeFault: async () => faults.shift() ?? standing,
    record: async (request) => {
      received.push(request);
    },
    noteAbortedByClient: async () => {
      abortedByClient += 1;
    },
  };
};

/** A real HTTP server speaking the vendors' wire formats, with faults on demand. */
export interface FakeUpstreamOptions {
  /** How long an idle kept-alive connection stays open (Node's default: 5 s). */
  readonly keepAliveTimeoutMs?: number;
  /** A fault every request gets unless one is injected for it, e.g. streams paced by `slow-stream`. */
  readonly standingFault?: Fault;
}

export const startFakeUpstream = async (
  routes: Record<string, WireRoute> = openAiRoutes,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> => {
  const state = memoryFakeState(options.standingFault);
  const sockets = new Set<Socket>();
  let connectionsAccepted = 0;
  const server: Server = createServer(answerAsFake(routes, state));
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  server.on('connection', (socket) => {
    connectionsAccepted += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    received: state.received,
    receivedRequests: async () => state.received,
    inject: async (...more) => {
      state.faults.push(...more);
    },
    clearFaults: async () => {
      state.faults.splice(0);
    },
    get abortedByClient() {
      return state.aborted();
    },
    abortedCount: async () => state.aborted(),
    get connectionsAccepted() {
      return connectionsAccepted;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
