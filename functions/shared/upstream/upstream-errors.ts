import { GatewayError } from '../errors.js';
import { redactSecrets } from '../security/redact-secrets.js';

/**
 * Failures of an upstream, as the client sees them (DESIGN §3.4). `retryable` tells the router that
 * another channel may still answer: nothing has reached the client yet.
 *
 * This is the one way an upstream's words enter the gateway (error bodies, mid-stream error events,
 * SDK messages): whatever text it is given is scrubbed of credentials here, since upstreams commonly
 * echo the request they got, its key included, in their errors.
 */
export class UpstreamError extends GatewayError {
  readonly retryable: boolean;
  /** Milliseconds the upstream asked us to wait (its Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: {
      status: number;
      type?: string;
      code: string | null;
      param?: string | null;
      retryable: boolean;
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    const clean = (text: string | null | undefined) =>
      text === null || text === undefined ? text : redactSecrets(text);
    super(redactSecrets(message), {
      status: options.status,
      type: clean(options.type) ?? 'upstream_error',
      code: clean(options.code) ?? null,
      param: clean(options.param) ?? null,
      expose: true,
      // A client told to slow down also learns for how long, as the upstream said.
      headers:
        options.status === 429 && options.retryAfterMs !== undefined
          ? { 'retry-after': String(Math.ceil(options.retryAfterMs / 1000)) }
          : undefined,
      cause: options.cause,
    });
    this.name = 'UpstreamError';
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export const upstreamUnreachable = (cause: unknown) =>
  new UpstreamError('The upstream provider could not be reached.', {
    status: 502,
    code: 'upstream_error',
    retryable: true,
    cause,
  });

export const upstreamTimeout = (what: string) =>
  new UpstreamError(`The upstream provider timed out (${what}).`, {
    status: 504,
    code: 'upstream_timeout',
    retryable: true,
  });

export const upstreamBrokenResponse = (detail: string) =>
  new UpstreamError(`The upstream provider sent a response we could not read: ${detail}`, {
    status: 502,
    code: 'upstream_error',
    retryable: true,
  });

export const noChannel = (model: string, endpoint: string) =>
  new UpstreamError(`No enabled channel can serve model '${model}' on ${endpoint} right now.`, {
    status: 503,
    code: 'no_channel',
    retryable: false,
  });

/**
 * The client went away: nothing to answer, and no reason to keep the upstream call open. Its status
 * (499, "client closed request") only ever reaches the usage record and the logs.
 */
export class ClientAbortedError extends GatewayError {
  constructor() {
    super('The client closed the request before the answer was complete.', {
      status: 499,
      type: 'invalid_request_error',
      code: 'client_closed_request',
      expose: true,
    });
    this.name = 'ClientAbortedError';
  }
}

/**
 * Why a request's signal was aborted, as the error to report: the reason it was aborted with when
 * that is one of ours (the function running out of time), otherwise the client's leaving.
 */
export const abortError = (signal: AbortSignal): GatewayError =>
  signal.reason instanceof GatewayError ? signal.reason : new ClientAbortedError();

const parseRetryAfter = (value: string | undefined): number | undefined => {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
};

/**
 * An upstream's error status, relayed: a client error keeps its status and the upstream's message; a
 * rejection of the gateway's own upstream credentials or a server error becomes 502, since the client
 * can do nothing about either.
 */
export const upstreamStatusError = (
  status: number,
  upstreamMessage: string | undefined,
  headers: { retryAfter?: string; param?: string | null; code?: string | null; type?: string | null } = {},
): UpstreamError => {
  const detail = upstreamMessage ? `: ${upstreamMessage}` : '';
  if (status === 429) {
    return new UpstreamError(`The upstream provider is rate limiting requests${detail}`, {
      status: 429,
      type: 'upstream_rate_limited',
      code: 'rate_limit_exceeded',
      retryable: true,
      retryAfterMs: parseRetryAfter(headers.retryAfter),
    });
  }
  if (status === 401 || status === 403) {
    return new UpstreamError(`The upstream provider refused the gateway's credentials (status ${status}).`, {
      status: 502,
      code: 'upstream_error',
      retryable: true,
    });
  }
  if (status >= 400 && status < 500) {
    return new UpstreamError(upstreamMessage ?? `The upstream provider refused the request (status ${status}).`, {
      status,
      type: headers.type ?? 'invalid_request_error',
      code: headers.code ?? 'upstream_rejected',
      param: headers.param ?? null,
      retryable: false,
    });
  }
  return new UpstreamError(`The upstream provider failed (status ${status})${detail}`, {
    status: 502,
    code: 'upstream_error',
    retryable: true,
    retryAfterMs: parseRetryAfter(headers.retryAfter),
  });
};
