import {
  GatewayError,
  internalError,
  invalidApiKey,
  invalidValue,
  methodNotAllowed,
  modelNotFound,
  payloadTooLarge,
  unknownUrl,
} from '../../functions/shared/errors.js';
import { errorBody, errorResponse } from '../../functions/shared/http/error-response.js';
import { CREDENTIAL_NAMES } from '../../functions/shared/security/credential-patterns.js';

describe('errorResponse', () => {
  it('renders a GatewayError as the OpenAI envelope with its status', () => {
    const response = errorResponse(invalidValue('temperature is too high', 'temperature'));

    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.body as string)).toEqual({
      error: {
        message: 'temperature is too high',
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_value',
      },
    });
  });

  it('hides the message and stack of an unexpected error behind a generic 500', () => {
    const secret = new Error('connect ECONNREFUSED with key sk-secret-value');

    const response = errorResponse(secret);

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('sk-secret-value');
    expect(response.body).not.toContain('ECONNREFUSED');
    expect(JSON.parse(response.body as string).error).toEqual({
      message: 'The server had an error while processing your request.',
      type: 'server_error',
      param: null,
      code: 'internal_error',
    });
  });

  it('hides the message of a 5xx GatewayError that is not marked exposable', () => {
    const error = new GatewayError('table gateway-keys missing', {
      status: 500,
      type: 'server_error',
      code: 'internal_error',
      expose: false,
    });

    expect(JSON.stringify(errorBody(error))).not.toContain('gateway-keys');
  });

  it('carries the error headers, such as Allow on a 405', () => {
    const response = errorResponse(methodNotAllowed('DELETE', '/v1/models', ['GET']));

    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET');
  });

  it('renders the Anthropic envelope with its error type names', () => {
    expect(errorBody(modelNotFound('x'), 'anthropic')).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: "The model 'x' does not exist or you do not have access to it." },
    });
  });

  it('renders the Google envelope with the status name', () => {
    expect(errorBody(invalidValue('bad', 'contents'), 'gemini')).toEqual({
      error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' },
    });
  });

  it("reaches the client with the gateway's own wording intact: none of its fixed messages looks like a credential", () => {
    const ownErrors = [
      invalidApiKey(),
      internalError(new Error('cause')),
      modelNotFound('gpt-4o'),
      unknownUrl('GET', '/v1/nothing'),
      methodNotAllowed('PUT', '/v1/models', ['GET']),
      payloadTooLarge(10_485_760),
    ];

    for (const error of ownErrors) {
      const response = errorResponse(error);
      expect(JSON.parse(response.body as string).error.message).toBe(error.message);
      expect(response.body).not.toContain('[redacted]');
    }
  });

  it('keeps the reason of a validation message that names a member called like a credential', () => {
    for (const name of [...CREDENTIAL_NAMES, 'apiKey', 'tools[0].function.parameters.properties.password']) {
      const message = `Invalid value for '${name}': a channel of type bedrock takes none; leave it out.`;
      const body = JSON.parse(errorResponse(invalidValue(message, name)).body as string);
      expect(body.error.message).toBe(message);
    }
  });

  it('still scrubs a credential in the reason or in the member of a validation message', () => {
    const secret = `sk-${'a1'.repeat(16)}`;
    const messages = [
      `Invalid value for 'apiKey': ${secret} is not a Bedrock key.`,
      `Invalid value for 'headers': expected text, not 'authorization: Bearer ${'b2'.repeat(10)}'.`,
      `Invalid value for '${secret}': unknown member.`,
    ];

    for (const message of messages) {
      const text = JSON.parse(errorResponse(invalidValue(message, null)).body as string).error.message as string;
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('b2'.repeat(10));
    }
  });
});
