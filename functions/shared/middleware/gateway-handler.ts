import middy from '@middy/core';
import { Readable, type Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type * as z from '../schemas/zod.js';
import type { AuditActor } from '../store/audit-entry.js';
import { principalActor } from '../audit/audit-actor.js';
import type { Principal } from '../auth/principal.js';
import { internalError } from '../errors.js';
import { bufferedResponseLimit } from '../http/buffered-response-limit.js';
import { CORS_ORIGINS_VARIABLE, parseCorsOrigins } from '../http/cors-policy.js';
import { decodePath } from '../http/decode-path.js';
import type { ErrorFormat } from '../http/error-response.js';
import { nullPrototypeRecord } from '../http/null-prototype.js';
import type { GatewayResponse } from '../http/response.js';
import { log } from '../log.js';
import { logFinishedRequest, type FinishedRequest } from '../observability/request-log.js';
import type { RequestTrace } from '../observability/request-trace.js';
import type { KeyRole } from '../store/keys.js';
import { promiseOf } from '../promise-of.js';
import { refreshesSettled } from '../store/ttl-cache.js';
import { authenticate, type KeyCarrier } from './authenticate.js';
import { cors } from './cors.js';
import { errorEnvelope } from './error-envelope.js';
import { watchDeadline } from './function-deadline.js';
import type { GatewayContext, GatewayMiddyRequest, GatewayState } from './gateway-context.js';
import { jsonBody } from './json-body.js';
import { normalizeHeaders } from './normalize-headers.js';
import { requestId } from './request-id.js';
import { executionModeStreamedResponse } from './streamed-execution.js';
import { timingHeaders } from './timing-headers.js';
import { validateBody } from './validate-body.js';

export interface EndpointOptions<Schema extends z.ZodMiniType | undefined> {
  /** The role a key needs, or `false` for an open endpoint. */
  readonly auth: KeyRole | false;
  /** Also accept a console session in `Authorization: Bearer` (see `AuthenticateOptions`). */
  readonly sessionPrincipal?: (token: string) => Promise<Principal>;
  /** Where the key may be carried; bearer only by default. */
  readonly carriers?: readonly KeyCarrier[];
  /**
   * The request body's schema, built on first use (`lazySchema`): a JSON object body is then required
   * and validated.
   */
  readonly body?: () => NonNullable<Schema>;
  /** Parse a JSON body when present, without a schema (multi-route functions validate per route). */
  readonly optionalJsonBody?: boolean;
  readonly errorFormat?: ErrorFormat;
  /** Lambda response streaming: the handler may return a stream body. */
  readonly streaming?: boolean;
}

/** What a handler gets: the request as the middlewares left it. */
export interface GatewayRequest<Body> {
  readonly event: APIGatewayProxyEvent;
  readonly requestId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly body: Body;
  /** The caller; only on authenticated endpoints. */
  readonly principal: Principal;
  /** Aborted when the function runs out of time, or (streaming functions) when the client goes away. */
  readonly signal: AbortSignal;
  readonly startedAt: number;
  /** Where the request's time goes; the meter reports to it. */
  readonly trace: RequestTrace;
  /**
   * Runs work off the client's critical path: the function does not return before it settles, but
   * the response (or the stream) is not held for it. Work given as a function starts only once the
   * response has gone out. Failures are logged, never sent to the client.
   */
  defer(work: Promise<unknown> | (() => Promise<unknown>)): void;
  /** Names who acted, for the request's log line (`recordAudit` calls it). */
  noteActor?(actor: AuditActor): void;
}

type Body<Schema> = Schema extends z.ZodMiniType ? z.output<Schema> : unknown;

declare const awslambda: { streamifyResponse: <T>(handler: T) => T };

type StreamingEntry = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<unknown>;

/** A streaming invocation's client: the request's controller, and the stream the client reads. */
interface WatchedClient {
  /** Aborted when the client goes away; the function's deadline aborts it too, whichever comes first. */
  readonly request: AbortController;
  readonly responseStream: Writable;
}

/**
 * A streaming invocation's Lambda context, carrying its client from before the middlewares make the
 * invocation's state until the response is out (`requestEnd` lets go of it). On the context itself,
 * not in a map keyed by it: a map lives in the old generation, and under load every entry, with the
 * request's controller and stream, was copied by young collections, and a weak one's table with it.
 */
type ClientWatchingContext = Context & { watchedClient?: WatchedClient };

/** Whether the client went away: its stream closed before the response had finished. */
const leftEarly = (responseStream: Writable) => !responseStream.writableFinished;

/**
 * A client that goes away destroys the response stream (Lambda's, or the local runtime's). Middy
 * writes to that stream only once the handler has returned, and cannot pipe into a destroyed one: a
 * handler still waiting on an upstream would not notice, and a stream body it then returned would be
 * neither read nor closed (its upstream left open, its usage never recorded, the function held until
 * its timeout). So the stream is watched from the start: an early close aborts the request's signal,
 * which closes the upstream call at once, and destroys a stream body returned after it. The request
 * has one controller, which the deadline aborts too: its signal carries whichever came first.
 */
const watchingClient = (entry: StreamingEntry): StreamingEntry =>
  awslambda.streamifyResponse((event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => {
    const request = new AbortController();
    responseStream.once('close', () => {
      if (leftEarly(responseStream)) request.abort();
    });
    (context as ClientWatchingContext).watchedClient = { request, responseStream };
    return entry(event, responseStream, context);
  });

/** A stream body the client will never read: destroyed, so that it closes its upstream and reports how it ended. */
const discardWhenClientGone = (response: GatewayResponse, client: WatchedClient | undefined): GatewayResponse => {
  const body = response.body;
  if (client && body instanceof Readable) {
    const { responseStream } = client;
    if (responseStream.closed) {
      if (leftEarly(responseStream)) body.destroy();
    } else {
      responseStream.once('close', () => {
        if (leftEarly(responseStream)) body.destroy();
      });
    }
  }
  return response;
};

/**
 * A REST API passes path parameters on as they stand in the path, percent-encoded (`org%2Fmodel`,
 * `gemini-2.5-pro%3AgenerateContent`): decoded here, once, for every endpoint; malformed encoding is
 * the client's 400.
 */
const decodedPathParameters = (encoded: APIGatewayProxyEvent['pathParameters']): Record<string, string> => {
  const decoded = nullPrototypeRecord<string>();
  for (const [name, value] of Object.entries(encoded ?? {})) {
    if (value !== undefined) decoded[name] = decodePath(value);
  }
  return decoded;
};

/** Logs a deferred work's failure; made apart so that what waits on the work holds the id alone. */
const failureLogger = (requestId: string) => (error: unknown) =>
  log.error('deferred work failed', { requestId, error: String(error) });

/**
 * Deferred work, with its failure heard at once: a promise may reject long before requestEnd awaits
 * it; a function is started by requestEnd, after the response.
 */
const deferred = (
  work: Promise<unknown> | (() => Promise<unknown>),
  requestId: string,
): Promise<unknown> | (() => Promise<unknown>) => {
  const logged = failureLogger(requestId);
  return typeof work === 'function' ? () => promiseOf(work).catch(logged) : work.catch(logged);
};

/**
 * The end of an invocation once its response is out: its deferred work settled, then its log line.
 * Built from what the line needs alone, so that an invocation waiting on its usage record (a batch
 * in a process that serves many) does not keep its event, body and middleware state alive: under
 * load that state outlived the young generation and made every scavenge copy it.
 */
const endAfter = (work: readonly Promise<unknown>[], finished: FinishedRequest): Promise<void> =>
  // One item (a request's usage record) is waited on as it is: a `Promise.all` of it is five more
  // objects for every invocation waiting on its record.
  (work.length === 1 ? work[0]! : Promise.all(work)).then(() => {
    logFinishedRequest(finished);
    return refreshesSettled();
  });

/** A request's `defer`, made out here: a closure made in the constructor kept the request in the same way. */
const deferInto =
  (state: GatewayState) =>
  (work: Promise<unknown> | (() => Promise<unknown>)): void => {
    state.pending.push(deferred(work, state.requestId));
  };

/**
 * The request a handler is given. A class for the sake of its one accessor: an object literal whose
 * getter is a new closure gets a hidden class of its own each time, and V8 keeps that class in the
 * old generation, with the getter and all it reaches (the request's state), until a full collection.
 * Every request's state then outlived young collections and was copied and promoted. `defer` stays a
 * closure of its own: handlers take it out of the request.
 */
class HandlerRequest<RequestBody> implements GatewayRequest<RequestBody> {
  readonly requestId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: RequestBody;
  readonly startedAt: number;
  readonly trace: RequestTrace;
  readonly defer: (work: Promise<unknown> | (() => Promise<unknown>)) => void;
  readonly #principal: Principal | undefined;
  readonly #state: GatewayState;

  constructor(
    readonly event: APIGatewayProxyEvent,
    state: GatewayState,
    readonly pathParameters: Readonly<Record<string, string>>,
    readonly signal: AbortSignal,
  ) {
    this.requestId = state.requestId;
    this.headers = state.headers;
    this.query = state.query;
    this.body = state.body as RequestBody;
    this.startedAt = state.startedAt;
    this.trace = state.trace;
    this.#principal = state.principal;
    this.#state = state;
    this.defer = deferInto(state);
  }

  noteActor(actor: AuditActor): void {
    this.#state.actor = actor;
  }

  get principal(): Principal {
    if (!this.#principal) throw internalError(new Error('principal read on an endpoint without auth'));
    return this.#principal;
  }
}

/**
 * Wraps an endpoint's handler in the shared middleware stack: request id, header normalisation,
 * error envelope, JSON body, authentication, validation. The handler sees only a clean request.
 */
export const gatewayHandler = <Schema extends z.ZodMiniType | undefined = undefined>(
  options: EndpointOptions<Schema>,
  handle: (request: GatewayRequest<Body<Schema>>) => Promise<GatewayResponse>,
) => {
  // Browser origins allowed, read once when the function starts; none: CORS stays off.
  const corsOrigins = parseCorsOrigins(process.env[CORS_ORIGINS_VARIABLE]);
  const lambdaHandler = async (event: APIGatewayProxyEvent, context: GatewayContext) => {
    const state = context.gateway;
    const client = (context as unknown as ClientWatchingContext).watchedClient;
    const controller = client?.request ?? new AbortController();
    state.deadline = watchDeadline(context, controller);
    const response = await handle(
      new HandlerRequest<Body<Schema>>(event, state, decodedPathParameters(event.pathParameters), controller.signal),
    );
    return discardWhenClientGone(response, client);
  };

  const plugin = {
    // The handler watches the deadline itself (function-deadline.ts), streamed bodies included.
    timeoutEarlyInMillis: 0,
    // After the response has been sent (streaming) or produced (buffered): settle the deferred work,
    // then write the request's one log line, which needs what that work recorded. Cache reloads run
    // in the background of requests; the invocation does not end with one half done.
    // Not async: what it returns is the invocation's end itself, where an async function's promise
    // would wait on it, one more promise for every invocation waiting on its usage record.
    requestEnd: (request: GatewayMiddyRequest): Promise<void> => {
      const state = request.context.gateway;
      if (!state) return refreshesSettled();
      // The body has gone out: no upstream work is left for the deadline to stop.
      state.deadline?.clear();
      state.deadline = undefined;
      (request.context as unknown as ClientWatchingContext).watchedClient = undefined;
      const finished: FinishedRequest = {
        method: request.event.httpMethod,
        path: request.event.path,
        requestId: state.requestId,
        status: (request.response as GatewayResponse | undefined)?.statusCode ?? 500,
        principal: state.principal,
        actor: state.actor ?? principalActor(state.principal),
        trace: state.trace,
      };
      const work = state.pending.map((item) => (typeof item === 'function' ? item() : item));
      // The runtime keeps the context until the invocation ends: let go of what only the handler used.
      state.pending = [];
      state.body = undefined;
      return endAfter(work, finished);
    },
  };
  const stack = middy<APIGatewayProxyEvent, GatewayResponse, Error, GatewayContext>(
    (options.streaming ? { ...plugin, executionMode: executionModeStreamedResponse } : plugin) as never,
  );
  const use = (middleware: object) => stack.use(middleware as never);
  use(requestId({ errorFormat: options.errorFormat }));
  use(timingHeaders());
  if (corsOrigins.length > 0) use(cors(corsOrigins));
  use(normalizeHeaders());
  use(errorEnvelope());
  if (!options.streaming) use(bufferedResponseLimit());
  // Authentication first: a caller without a valid key learns nothing about how we read bodies.
  if (options.auth)
    use(authenticate({ carriers: options.carriers, role: options.auth, sessionPrincipal: options.sessionPrincipal }));
  if (options.body || options.optionalJsonBody) use(jsonBody({ required: Boolean(options.body) }));
  if (options.body) use(validateBody(options.body));
  const handler = stack.handler(lambdaHandler as never);
  return options.streaming ? watchingClient(handler as unknown as StreamingEntry) : handler;
};

export type { GatewayMiddyRequest };
