/**
 * Lambda's Runtime API, as far as one function instance sees it: the runtime polls
 * `GET /invocation/next` for an event, then posts the answer (buffered, or streamed with the
 * HTTP-integration prelude) or an error. It is what the runtime interface client talks to when
 * `npm run build` times a bundle's cold start and when the bundle test runs bundles under it.
 *
 * Reference: the Lambda developer guide's "Runtime API" and "Response streaming" pages (routes,
 * `Lambda-Runtime-*` headers, the prelude's 8-byte NUL delimiter, error trailers).
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InvocationResult } from './bundle-runner.js';

const API = '/2018-06-01/runtime';
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const PRELUDE_DELIMITER = Buffer.alloc(8);

/** What the runtime reported instead of an answer: an invocation error, a mid-stream failure, an init error. */
export class RuntimeReportedError extends Error {
  override readonly name = 'RuntimeReportedError';
  constructor(
    readonly errorType: string,
    readonly report: string,
  ) {
    super(`the runtime reported ${errorType}: ${report}`);
  }
}

interface Pending {
  readonly id: string;
  readonly event: unknown;
  readonly resolve: (result: InvocationResult) => void;
  readonly reject: (error: Error) => void;
}

export interface RuntimeApi {
  /** `host:port`, for `AWS_LAMBDA_RUNTIME_API`. */
  readonly address: string;
  /** `performance.now()` when the runtime first asked for an invocation: its init is over. */
  readonly initDone: Promise<number>;
  /** Hands the runtime one event and resolves with its answer. */
  invoke(event: unknown): Promise<InvocationResult>;
  close(): Promise<void>;
}

const readAll = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A buffered answer: the API Gateway proxy result the handler returned, as JSON. */
const bufferedResult = (raw: Buffer): InvocationResult => {
  const result = JSON.parse(raw.toString('utf8')) as {
    statusCode: number;
    headers?: Record<string, string>;
    body?: string;
    isBase64Encoded?: boolean;
  };
  const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '');
  return { statusCode: result.statusCode, headers: result.headers ?? {}, body };
};

/** A streamed answer: the prelude (status and headers), eight NUL bytes, then the body as written. */
const streamedResult = (request: IncomingMessage, raw: Buffer): InvocationResult => {
  if (request.headers['content-type'] !== PRELUDE_CONTENT_TYPE)
    return {
      statusCode: 200,
      headers: { 'content-type': String(request.headers['content-type']) },
      body: raw.toString('utf8'),
    };
  const end = raw.indexOf(PRELUDE_DELIMITER);
  if (end < 0) throw new RuntimeReportedError('Runtime.MalformedPrelude', 'no delimiter after the prelude');
  const prelude = JSON.parse(raw.subarray(0, end).toString('utf8')) as {
    statusCode?: number;
    headers?: Record<string, string>;
  };
  return {
    statusCode: prelude.statusCode ?? 200,
    headers: prelude.headers ?? {},
    body: raw.subarray(end + PRELUDE_DELIMITER.length).toString('utf8'),
  };
};

export const startRuntimeApi = async (functionName = 'runtime-api'): Promise<RuntimeApi> => {
  const queued: Pending[] = [];
  const inFlight = new Map<string, Pending>();
  const polling: ServerResponse[] = [];
  let markInitDone!: (at: number) => void;
  let failInit!: (error: Error) => void;
  const initDone = new Promise<number>((resolve, reject) => {
    markInitDone = resolve;
    failInit = reject;
  });
  // A rejection nobody awaits (an init error while only answers are awaited) must not end the process.
  initDone.catch(() => undefined);

  const deliver = (poll: ServerResponse, pending: Pending) => {
    inFlight.set(pending.id, pending);
    poll.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': pending.id,
      'lambda-runtime-deadline-ms': String(Date.now() + 60_000),
      'lambda-runtime-invoked-function-arn': `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
      'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)};Sampled=0`,
    });
    poll.end(JSON.stringify(pending.event));
  };

  const settle = async (request: IncomingMessage, id: string, outcome: 'response' | 'error') => {
    const pending = inFlight.get(id);
    let raw: Buffer;
    try {
      raw = await readAll(request);
    } catch (error) {
      // The runtime went away mid-answer (its process ended): the invocation fails with that.
      inFlight.delete(id);
      pending?.reject(error as Error);
      return;
    }
    if (!pending) return;
    inFlight.delete(id);
    const trailerType = request.trailers['lambda-runtime-function-error-type'];
    if (outcome === 'error' || trailerType) {
      const report = trailerType
        ? Buffer.from(request.trailers['lambda-runtime-function-error-body'] ?? '', 'base64').toString('utf8')
        : raw.toString('utf8');
      pending.reject(
        new RuntimeReportedError(String(trailerType ?? request.headers['lambda-runtime-function-error-type']), report),
      );
      return;
    }
    try {
      const streamed = request.headers['lambda-runtime-function-response-mode'] === 'streaming';
      pending.resolve(streamed ? streamedResult(request, raw) : bufferedResult(raw));
    } catch (error) {
      pending.reject(error as Error);
    }
  };

  const server = http.createServer((request, response) => {
    const url = request.url ?? '';
    if (request.method === 'GET' && url === `${API}/invocation/next`) {
      markInitDone(performance.now());
      const pending = queued.shift();
      if (pending) deliver(response, pending);
      else polling.push(response);
      return;
    }
    const invocation = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (request.method === 'POST' && invocation) {
      void settle(request, decodeURIComponent(invocation[1]!), invocation[2] as 'response' | 'error').finally(() =>
        response.writeHead(202).end('{"status":"OK"}'),
      );
      return;
    }
    if (request.method === 'POST' && url === `${API}/init/error`) {
      void readAll(request).then((raw) => {
        const error = new RuntimeReportedError(
          String(request.headers['lambda-runtime-function-error-type']),
          raw.toString('utf8'),
        );
        failInit(error);
        for (const pending of queued.splice(0)) pending.reject(error);
        response.writeHead(202).end('{"status":"OK"}');
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    address: `127.0.0.1:${port}`,
    initDone,
    invoke: (event) =>
      new Promise<InvocationResult>((resolve, reject) => {
        const pending: Pending = { id: randomUUID(), event, resolve, reject };
        const poll = polling.shift();
        if (poll) deliver(poll, pending);
        else queued.push(pending);
      }),
    close: async () => {
      for (const poll of polling.splice(0)) poll.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
