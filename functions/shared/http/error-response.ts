import type { GatewayError } from '../errors.js';
import { internalError, isGatewayError } from '../errors.js';
import { redactSecrets } from '../security/redact-secrets.js';
import { json, type GatewayResponse } from './response.js';

/** The client-facing envelope families: OpenAI's (default), Anthropic's, and Google's. */
export type ErrorFormat = 'openai' | 'anthropic' | 'gemini';

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Any thrown value, as a GatewayError whose message is safe to show. */
export const toGatewayError = (error: unknown): GatewayError => {
  if (isGatewayError(error)) return error;
  return internalError(error);
};

/**
 * The gateway's own validation messages lead with the member they name (`Invalid value for 'apiKey': …`),
 * which reads like a credential's name and value: the reason would be taken for the secret.
 */
const NAMED_MEMBER = /^(Invalid value for '[^'\n]*'): /;

// Scrubbed once more on the way out: a message may quote what a client or an admin sent. A named
// member and the reason after it are scrubbed apart, each still for every other shape of credential.
const publicMessage = (error: GatewayError): string => {
  if (!error.expose) return 'The server had an error while processing your request.';
  const named = NAMED_MEMBER.exec(error.message);
  if (!named) return redactSecrets(error.message);
  return `${redactSecrets(named[1]!)}: ${redactSecrets(error.message.slice(named[0].length))}`;
};

/** The envelope body for one error, in the given format. */
export const errorBody = (error: GatewayError, format: ErrorFormat = 'openai'): unknown => {
  const message = publicMessage(error);
  switch (format) {
    case 'openai':
      return { error: { message, type: error.type, param: error.param, code: error.code } };
    case 'anthropic':
      return {
        type: 'error',
        error: {
          type: ANTHROPIC_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
          message,
        },
      };
    case 'gemini':
      return {
        error: {
          code: error.status,
          message,
          status: GEMINI_STATUS[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
        },
      };
    default: {
      const unreachable: never = format;
      throw new Error(`unknown error format ${String(unreachable)}`);
    }
  }
};

/** The single place where a thrown value becomes the HTTP response the client sees. */
export const errorResponse = (thrown: unknown, format: ErrorFormat = 'openai'): GatewayResponse => {
  const error = toGatewayError(thrown);
  return json(error.status, errorBody(error, format), { ...error.headers });
};
