/**
 * Lambda's Runtime API as the bench needs it: the documented routes (`/invocation/next`,
 * `/invocation/{id}/response`, `/invocation/{id}/error`, `/init/error`), buffered and streamed
 * responses (`Lambda-Runtime-Function-Response-Mode: streaming`, the HTTP-integration prelude and its
 * eight NUL bytes, error trailers), and the moments Lambda bills by: an invocation is billed from its
 * delivery to the runtime's next poll. Each invocation's timings are taken on this side of the socket,
 * as Lambda's own service takes them.
 *
 * Reference: the Lambda developer guide's "Using the Lambda runtime API for custom runtimes" and
 * "Response streaming" pages.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const API = '/2018-06-01/runtime';
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const PRELUDE_DELIMITER = Buffer.alloc(8);

/** One invocation as the Runtime API saw it; times are `performance.now()` milliseconds. */
export interface Invocation {
  readonly deliveredAt: number;
  /** The first byte of the response's body (after a streamed response's prelude). */
  readonly firstByteAt: number;
  /** The response's last byte. */
  readonly doneAt: number;
  /** The runtime's next poll: where Lambda stops billing. Undefined with concurrent invocations. */
  readonly nextPollAt: number | undefined;
  readonly statusCode: number;
  readonly body: Buffer;
  /** The error the runtime reported instead of a response (its type), if it did. */
  readonly error?: string;
}

export interface RuntimeApi {
  /** `host:port`, for `AWS_LAMBDA_RUNTIME_API`. */
  readonly address: string;
  /** When the runtime first polled (its init is over), or the init error it reported. */
  readonly initDone: Promise<number>;
  /** Delivers one event; settles once its response is complete and, unless `concurrent`, the runtime polled again. */
  invoke(event: unknown): Promise<Invocation>;
  close(): Promise<void>;
}

interface Pending {
  readonly id: string;
  readonly event: string;
  deliveredAt: number;
  readonly settle: (invocation: Omit<Invocation, 'nextPollAt'>) => void;
  readonly polled: (at: number) => void;
}

/** Splits a streamed body into its prelude's status and the body proper. */
const splitPrelude = (raw: Buffer): { statusCode: number; body: Buffer } => {
  const end = raw.indexOf(PRELUDE_DELIMITER);
  if (end < 0) return { statusCode: 0, body: raw };
  const prelude = JSON.parse(raw.subarray(0, end).toString('utf8')) as { statusCode?: number };
  return { statusCode: prelude.statusCode ?? 200, body: raw.subarray(end + PRELUDE_DELIMITER.length) };
};

/**
 * Starts the Runtime API on loopback. With `concurrent`, invocations are handed to every open poll at
 * once, as Lambda Managed Instances do, and no invocation waits for the next poll.
 */
export const startRuntimeApi = async (options: { concurrent?: boolean } = {}): Promise<RuntimeApi> => {
  const queued: Pending[] = [];
  const polling: ServerResponse[] = [];
  const inFlight = new Map<string, Pending>();
  /**
   * Invocations delivered and not yet followed by a poll: the next poll is their billed end. It may
   * come before their response's last byte is read here (a buffered response is posted without waiting).
   */
  let awaitingPoll: Array<(at: number) => void> = [];
  let markInitDone!: (at: number) => void;
  let failInit!: (error: Error) => void;
  const initDone = new Promise<number>((resolve, reject) => {
    markInitDone = resolve;
    failInit = reject;
  });
  initDone.catch(() => undefined);

  const deliver = (poll: ServerResponse, pending: Pending) => {
    inFlight.set(pending.id, pending);
    pending.deliveredAt = performance.now();
    awaitingPoll.push(pending.polled);
    poll.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': pending.id,
      'lambda-runtime-deadline-ms': String(Date.now() + 900_000),
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:us-east-1:123456789012:function:bench',
      'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${'0'.repeat(24)};Sampled=0`,
    });
    poll.end(pending.event);
  };

  const receive = (request: IncomingMessage, response: ServerResponse, id: string, kind: 'response' | 'error') => {
    const pending = inFlight.get(id);
    const streamed = request.headers['lambda-runtime-function-response-mode'] === 'streaming';
    const withPrelude = request.headers['content-type'] === PRELUDE_CONTENT_TYPE;
    const chunks: Buffer[] = [];
    let length = 0;
    let firstByteAt: number | undefined;
    request.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (firstByteAt !== undefined) return;
      // A streamed body's first byte is the first one after the prelude's delimiter.
      if (!withPrelude) firstByteAt = performance.now();
      else {
        const end = Buffer.concat(chunks, length).indexOf(PRELUDE_DELIMITER);
        if (end >= 0 && length > end + PRELUDE_DELIMITER.length) firstByteAt = performance.now();
      }
    });
    request.on('end', () => {
      const doneAt = performance.now();
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
      if (!pending) return;
      inFlight.delete(id);
      const raw = Buffer.concat(chunks, length);
      const trailerType = request.trailers['lambda-runtime-function-error-type'];
      const error =
        kind === 'error' ? String(request.headers['lambda-runtime-function-error-type'] ?? 'error') : trailerType;
      let statusCode = 200;
      let body: Buffer = raw;
      if (!error && streamed && withPrelude) ({ statusCode, body } = splitPrelude(raw));
      else if (!error && !streamed) {
        const result = JSON.parse(raw.toString('utf8')) as {
          statusCode?: number;
          body?: string;
          isBase64Encoded?: boolean;
        };
        statusCode = result.statusCode ?? 200;
        body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
      }
      pending.settle({
        deliveredAt: pending.deliveredAt,
        firstByteAt: firstByteAt ?? doneAt,
        doneAt,
        statusCode: error ? 0 : statusCode,
        body,
        ...(error && { error: String(error) }),
      });
    });
    request.on('error', () => {
      if (!pending) return;
      inFlight.delete(id);
      const at = performance.now();
      pending.settle({
        deliveredAt: pending.deliveredAt,
        firstByteAt: at,
        doneAt: at,
        statusCode: 0,
        body: Buffer.alloc(0),
        error: 'Runtime.ExitError',
      });
    });
  };

  const server = http.createServer((request, response) => {
    const url = request.url ?? '';
    if (request.method === 'GET' && url === `${API}/invocation/next`) {
      const at = performance.now();
      markInitDone(at);
      const waiting = awaitingPoll;
      awaitingPoll = [];
      for (const resolve of waiting) resolve(at);
      const pending = queued.shift();
      if (pending) deliver(response, pending);
      else polling.push(response);
      return;
    }
    const invocation = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (request.method === 'POST' && invocation) {
      receive(request, response, decodeURIComponent(invocation[1]!), invocation[2] as 'response' | 'error');
      return;
    }
    if (request.method === 'POST' && url === `${API}/init/error`) {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        failInit(new Error(`init error: ${Buffer.concat(chunks).toString('utf8').slice(0, 2000)}`));
        response.writeHead(202).end('{"status":"OK"}');
      });
      return;
    }
    response.writeHead(404).end();
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    address: `127.0.0.1:${port}`,
    initDone,
    invoke: (event) =>
      new Promise<Invocation>((resolve) => {
        let nextPollAt: number | undefined;
        let settled: Omit<Invocation, 'nextPollAt'> | undefined;
        const finish = () => {
          if (settled && (nextPollAt !== undefined || options.concurrent || settled.error === 'Runtime.ExitError'))
            resolve({ ...settled, nextPollAt: options.concurrent ? undefined : nextPollAt });
        };
        const pending: Pending = {
          id: randomUUID(),
          event: JSON.stringify(event),
          deliveredAt: 0,
          settle: (invocation) => {
            settled = invocation;
            finish();
          },
          polled: (at) => {
            nextPollAt = at;
            finish();
          },
        };
        const poll = polling.shift();
        if (poll) deliver(poll, pending);
        else queued.push(pending);
      }),
    close: async () => {
      for (const poll of polling.splice(0)) poll.destroy();
      for (const resolve of awaitingPoll.splice(0)) resolve(performance.now());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
