import {
  abortError,
  ClientAbortedError,
  UpstreamError,
  upstreamBrokenResponse,
  upstreamStatusError,
  upstreamTimeout,
  upstreamUnreachable,
} from '../../upstream/upstream-errors.js';

/** What the AWS SDK puts on the errors it throws: the exception's name, message and HTTP status. */
interface SdkError {
  readonly name?: string;
  readonly message?: string;
  /** Node's error code, for network failures. */
  readonly code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** Refusals of the gateway's own AWS identity: the client can do nothing about them, another channel may. */
const CREDENTIAL_ERRORS = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignature',
  'ExpiredTokenException',
  'MissingAuthenticationTokenException',
  'CredentialsProviderError',
]);

/** Bedrock-side failures that another channel (another region, another account) may not have. */
const SERVER_ERRORS: Readonly<Record<string, number>> = {
  InternalServerException: 500,
  ServiceUnavailableException: 503,
  ModelNotReadyException: 503,
  ModelErrorException: 502,
  ModelStreamErrorException: 502,
};

/** The event stream decoder's complaints: bytes that are not a valid frame. */
const BROKEN_STREAM = /checksum|Reached the end of the stream|Unrecognizable event type/i;

const sdkFields = (error: unknown): SdkError =>
  error !== null && typeof error === 'object' ? (error as SdkError) : {};

/**
 * An error of the Bedrock SDK as the error the client gets, with `retryable` telling the router
 * whether another channel may still answer. An abort by the client stays a ClientAbortedError.
 */
export const bedrockError = (error: unknown, signal?: AbortSignal): Error => {
  if (signal?.aborted) return abortError(signal);
  if (error instanceof ClientAbortedError) return error;
  if (error instanceof UpstreamError) return error;
  const fields = sdkFields(error);
  const { name = '', code, $metadata } = fields;
  // 'UnknownError' is the SDK's placeholder when an error body named nothing.
  const message = fields.message === 'UnknownError' ? undefined : fields.message;
  if (message && BROKEN_STREAM.test(message)) return upstreamBrokenResponse(message);
  if (CREDENTIAL_ERRORS.has(name) || (name === 'Error' && /credential/i.test(message ?? '')))
    return upstreamStatusError(403, undefined);
  // Own members only: an error named `constructor` or `toString` is no server error.
  const serverStatus = Object.hasOwn(SERVER_ERRORS, name) ? SERVER_ERRORS[name] : undefined;
  if (serverStatus !== undefined) return upstreamStatusError(serverStatus, message);
  switch (name) {
    // An exhausted account quota is the same situation as throttling, for the client and for failover.
    case 'ThrottlingException':
    case 'ServiceQuotaExceededException':
      return upstreamStatusError(429, message);
    case 'ModelTimeoutException':
      return upstreamTimeout('the model took too long');
    case 'TimeoutError':
      // The SDK's HTTP handler gives this name to its two timeouts, told apart by their message, and
      // also to a connection reset or a broken pipe, which are no timeouts at all.
      if (code === 'ECONNRESET' || code === 'EPIPE') return upstreamUnreachable(error);
      return upstreamTimeout(/establish a connection/.test(message ?? '') ? 'connect' : 'no response');
    case 'ValidationException':
      return upstreamStatusError(400, message);
    case 'ResourceNotFoundException':
      // The public model exists: it is this channel's upstream model (its modelMap, its region or the
      // account's model access) that is missing. That is the operator's to fix, like a refused
      // credential, and another channel may serve the model, so the router may move on.
      return new UpstreamError(`The upstream provider does not serve this channel's model: ${message ?? 'not found'}`, {
        status: 502,
        code: 'upstream_error',
        retryable: true,
      });
    default: {
      const status = $metadata?.httpStatusCode;
      if (status === undefined) return upstreamUnreachable(error);
      // A success status with an error means the SDK could not read the body.
      return status < 300 ? upstreamBrokenResponse(message ?? name) : upstreamStatusError(status, message);
    }
  }
};

/**
 * A failure after the stream has begun: reported to the client as an error event, never retried
 * elsewhere (part of the answer may already be out).
 */
export const bedrockStreamError = (error: unknown, signal?: AbortSignal): Error => {
  // The gateway's own verdicts (idle timeout, an incomplete stream) are already worded for the client.
  if (error instanceof UpstreamError && !signal?.aborted) return error;
  const mapped = bedrockError(error, signal);
  const detail = sdkFields(error).message;
  if (!(mapped instanceof UpstreamError) || mapped.code === 'upstream_timeout' || !detail || BROKEN_STREAM.test(detail))
    return mapped;
  return new UpstreamError(`The upstream provider failed mid-stream: ${detail}`, {
    status: mapped.status,
    type: mapped.type,
    code: mapped.code,
    retryable: false,
    cause: error,
  });
};
