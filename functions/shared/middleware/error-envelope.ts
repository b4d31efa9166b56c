import { describeThrown } from '../errors.js';
import { errorResponse, toGatewayError } from '../http/error-response.js';
import { log } from '../log.js';
import type { GatewayMiddyRequest } from './gateway-context.js';

/**
 * Turns anything thrown before the response starts into the client's envelope and status. A 5xx not
 * meant for the client is logged here with its cause and shown to the client as a generic message.
 */
export const errorEnvelope = () => {
  const errorEnvelopeOnError = (request: GatewayMiddyRequest): void => {
    const error = toGatewayError(request.error);
    const gateway = request.context.gateway;
    if (error.status >= 500) {
      log.error('request failed', {
        requestId: gateway?.requestId,
        status: error.status,
        code: error.code,
        error: error.expose ? error.message : describeThrown(error.cause ?? request.error),
      });
    }
    request.response = errorResponse(error, gateway?.errorFormat ?? 'openai');
  };
  return { onError: errorEnvelopeOnError };
};
