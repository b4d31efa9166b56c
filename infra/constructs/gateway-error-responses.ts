import * as apigateway from 'aws-cdk-lib/aws-apigateway';

/**
 * API Gateway answers some requests itself, before any function runs: a body over 10 MB, a
 * throttled burst, a path with no resource, a timed-out integration. These responses give those
 * answers the same envelope as the functions' own errors (DESIGN §3.4), so a client parses one shape.
 */
interface GatewayErrorResponse {
  readonly type: apigateway.ResponseType;
  /** Omitted: keep the status API Gateway chose (the DEFAULT_* families span several). */
  readonly status?: number;
  readonly errorType: string;
  readonly code: string | null;
  /** A fixed text, or `undefined` to pass API Gateway's own message through. */
  readonly message?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** API Gateway's request body limit, which the local runtime applies too (DESIGN §3.4). */
const requestBodyLimitBytes = 10 * 1024 * 1024;

const genericServerMessage = 'The server had an error while processing your request.';

const errorResponses: readonly GatewayErrorResponse[] = [
  { type: apigateway.ResponseType.DEFAULT_4XX, errorType: 'invalid_request_error', code: null },
  { type: apigateway.ResponseType.DEFAULT_5XX, errorType: 'server_error', code: 'internal_error', message: genericServerMessage },
  {
    type: apigateway.ResponseType.REQUEST_TOO_LARGE,
    status: 413,
    errorType: 'invalid_request_error',
    code: 'payload_too_large',
    message: `The request body is larger than ${requestBodyLimitBytes} bytes.`,
  },
  // No usage plans are attached, so these come from the stage's or the account's throttle.
  ...[apigateway.ResponseType.THROTTLED, apigateway.ResponseType.QUOTA_EXCEEDED].map((type) => ({
    type,
    status: 429,
    errorType: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Too many requests reached the gateway at once. Retry after a short wait.',
    headers: { 'retry-after': '1' },
  })),
  // API Gateway's "Missing Authentication Token" really means "no such resource or method".
  ...[apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, apigateway.ResponseType.RESOURCE_NOT_FOUND].map((type) => ({
    type,
    status: 404,
    errorType: 'invalid_request_error',
    code: 'unknown_url',
    message: 'Unknown request URL. Check the path and the /v1 prefix.',
  })),
  // Only reachable if an operator adds a resource policy or a WAF web ACL (DESIGN: an IP not allowed).
  ...[apigateway.ResponseType.ACCESS_DENIED, apigateway.ResponseType.WAF_FILTERED].map((type) => ({
    type,
    status: 403,
    errorType: 'permission_error',
    code: 'forbidden',
  })),
  {
    type: apigateway.ResponseType.INTEGRATION_TIMEOUT,
    status: 504,
    errorType: 'upstream_error',
    code: 'upstream_timeout',
    message: 'The request timed out before the gateway could answer.',
  },
];

/**
 * The envelope as a gateway response template. Templates are not run through VTL, but `$context`
 * variables are substituted; `$context.error.messageString` arrives already quoted as a JSON string.
 */
const envelopeTemplate = (response: GatewayErrorResponse): string => {
  const message = response.message === undefined ? '$context.error.messageString' : JSON.stringify(response.message);
  const code = response.code === null ? 'null' : JSON.stringify(response.code);
  return `{"error":{"message":${message},"type":${JSON.stringify(response.errorType)},"param":null,"code":${code}}}`;
};

/** Header values in gateway responses are literals, so they go in single quotes. */
const literalHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/** Adds the enveloped responses to a REST API. */
export const addGatewayErrorResponses = (api: apigateway.RestApi): void => {
  for (const response of errorResponses) {
    api.addGatewayResponse(`${response.type.responseType}Response`, {
      type: response.type,
      statusCode: response.status === undefined ? undefined : String(response.status),
      responseHeaders: literalHeaders({ 'content-type': 'application/json', ...response.headers }),
      templates: { 'application/json': envelopeTemplate(response) },
    });
  }
};
